//! How Linux turns the socket options an application sets (iperf `-w`, `-M`) into
//! the numbers its TCP works with, as in Linux 2.6.20 (the kernel of the wimax
//! study's testbed); where today's Linux differs it is said below.
//!
//! * `SO_SNDBUF` / `SO_RCVBUF` (`net/core/sock.c`, `sock_setsockopt`): the kernel
//!   stores twice the value asked for, "to account for `struct sk_buff` etc.
//!   overhead", and at least `SOCK_MIN_SNDBUF` = 2048 / `SOCK_MIN_RCVBUF` = 256
//!   bytes (`include/net/sock.h`). It first caps the value at
//!   `net.core.wmem_max` / `rmem_max` (in 2.6.20, `sk_init` sets both to 131071 B
//!   on a machine with 512 MB or more, 32767 B at 16 MB or less, and leaves
//!   `(sizeof(struct sk_buff) + 256) × 256` in between); that cap is a property of
//!   the machine's sysctls, not modelled here: a scenario applies it by asking for
//!   no more than the cap (the wimax study passes min(b, 131071); docs/tcp.md).
//! * The advertised window from the receive buffer (`tcp_input.c`
//!   `tcp_init_buffer_space`, `tcp_win_from_space`): the buffer holds data and
//!   per-packet overhead, so only `space − space / 2^tcp_adv_win_scale` of it is
//!   offered (`tcp_adv_win_scale` = 2 in 2.6.20: three quarters; 1, one half,
//!   from Linux 3.4; since 6.6 a measured ratio replaces it), and one segment of
//!   that is held back ("Force reservation of one segment"), never below two
//!   segments.
//! * The MSS (`tcp_output.c` `tcp_sync_mss`, `tcp_mtu_to_mss`): the path MTU less
//!   the IP and TCP headers (40 B), clamped by the MSS the application asked for
//!   with `TCP_MAXSEG`, less the timestamp option (12 B) when it is on.

/// `SOCK_MIN_SNDBUF` (`include/net/sock.h`, 2.6.20).
pub const SOCK_MIN_SNDBUF: u64 = 2048;
/// `SOCK_MIN_RCVBUF` (`include/net/sock.h`, 2.6.20).
pub const SOCK_MIN_RCVBUF: u64 = 256;
/// `sysctl_tcp_adv_win_scale` in 2.6.20 (`tcp_input.c`).
pub const TCP_ADV_WIN_SCALE: u32 = 2;
/// IPv4 header + TCP header without options (`net_header_len + sizeof(tcphdr)`).
pub const IP_TCP_HEADERS: u32 = 40;

/// `sk_sndbuf` after `setsockopt(SO_SNDBUF, value)`: doubled, at least 2048 B.
pub fn kernel_sndbuf(value: u64) -> u64 {
    value.saturating_mul(2).max(SOCK_MIN_SNDBUF)
}

/// `sk_rcvbuf` after `setsockopt(SO_RCVBUF, value)`: doubled, at least 256 B.
pub fn kernel_rcvbuf(value: u64) -> u64 {
    value.saturating_mul(2).max(SOCK_MIN_RCVBUF)
}

/// `tcp_win_from_space`: the part of `space` buffer bytes offered as window.
pub fn win_from_space(space: u64) -> u64 {
    space - (space >> TCP_ADV_WIN_SCALE)
}

/// The largest window a receiver with `SO_RCVBUF = rcvbuf` advertises when its
/// application reads at once (`tcp_init_buffer_space`'s `window_clamp`; with
/// `tcp_app_win` = 31 its first reduction is nil): `maxwin =
/// tcp_win_from_space(sk_rcvbuf)`, then, if above two segments, one segment less,
/// but not below two. `advmss` is the MSS the receiver announces (MTU − 40, or the
/// application's smaller `TCP_MAXSEG`). Window scaling is on in 2.6.20 (its
/// `tcp_rmem[2]` exceeds 64 KB), so the window is not rounded to whole segments.
pub fn receive_window(rcvbuf: u64, advmss: u32) -> u64 {
    let maxwin = win_from_space(kernel_rcvbuf(rcvbuf));
    let advmss = u64::from(advmss);
    if maxwin > 2 * advmss {
        (maxwin - advmss).max(2 * advmss)
    } else {
        maxwin
    }
}

/// The MSS the sender uses before options: `min(mtu − 40, requested)`, the
/// receiver's `advmss` too (`tcp_sync_mss`; the 48 B floor of `tcp_sync_mss`
/// matters only for MTUs below 88 B, which validation refuses).
pub fn clamped_mss(requested: u32, mtu: u32) -> u32 {
    requested.min(mtu.saturating_sub(IP_TCP_HEADERS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_doubled_with_a_floor() {
        // iperf -w 2KB: 2 × 2048 = 4096; -w 512 B: 1024, raised to 2048.
        assert_eq!(kernel_sndbuf(2048), 4096);
        assert_eq!(kernel_sndbuf(512), 2048);
        // SO_RCVBUF 100 B: 200, raised to 256.
        assert_eq!(kernel_rcvbuf(100), 256);
        assert_eq!(kernel_rcvbuf(512 * 1024), 1_048_576);
    }

    #[test]
    fn a_2kb_receive_buffer_offers_two_segments() {
        // sk_rcvbuf = 2 × 2048 = 4096; maxwin = 4096 − 4096/4 = 3072; 3072 > 2 × 1460
        // = 2920, so one segment is reserved: max(3072 − 1460, 2920) = 2920.
        assert_eq!(win_from_space(4096), 3072);
        assert_eq!(receive_window(2048, 1460), 2920);
        // 1 KB: sk_rcvbuf 2048, maxwin 1536 ≤ 2920: offered as it is.
        assert_eq!(receive_window(1024, 1460), 1536);
        // 512 KB: 1048576 − 262144 = 786432, less one segment = 784972.
        assert_eq!(receive_window(512 * 1024, 1460), 784_972);
    }

    #[test]
    fn mss_is_clamped_to_the_mtu() {
        // TCP_MAXSEG 65536 over a 1500 B MTU: 1500 − 40 = 1460.
        assert_eq!(clamped_mss(65_536, 1500), 1460);
        assert_eq!(clamped_mss(536, 1500), 536);
        assert_eq!(clamped_mss(9000, 9000), 8960);
    }
}
