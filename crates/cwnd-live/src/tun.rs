//! TUN devices (Linux `Documentation/networking/tuntap.rst`): a layer-3 device
//! whose packets are read from and written to a file descriptor.

use std::ffi::CString;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// `TUNSETIFF` = `_IOW('T', 202, int)` (include/uapi/linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
/// A TUN (IP) device, not TAP (Ethernet).
const IFF_TUN: libc::c_short = 0x0001;
/// No 4-byte packet-information prefix: reads and writes are bare IP packets.
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as `TUNSETIFF` reads it: the name and the flags.
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Creates the TUN device `name` (at most 15 bytes) in the caller's network
/// namespace, non-blocking. The device disappears when the last descriptor to
/// it closes, so a crashed run leaves no device behind.
pub fn open(name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("TUN name {name:?} must have 1 to 15 bytes"),
        ));
    }
    let path = CString::new("/dev/net/tun").expect("no NUL");
    // SAFETY: a valid NUL-terminated path; the result is checked.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    for (dst, &b) in req.name.iter_mut().zip(name.as_bytes()) {
        *dst = b as libc::c_char;
    }
    // SAFETY: `req` is a properly laid out `struct ifreq` that outlives the call.
    if unsafe { libc::ioctl(fd, TUNSETIFF, &mut req) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(owned)
}
