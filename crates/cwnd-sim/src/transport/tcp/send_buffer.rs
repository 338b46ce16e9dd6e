//! The application's writes into the socket's send buffer, as Linux 2.6.20's
//! `tcp_sendmsg` (`net/ipv4/tcp.c`) takes them from a blocking socket.
//!
//! * A write of `write_size` bytes (iperf `-l`) is copied into the stream: first
//!   into the last queued segment while it is unsent and shorter than the MSS
//!   (Linux appends to the tail skb), then into new segments of up to one MSS. So
//!   the unsent bytes are always whole MSS-sized segments and one shorter tail,
//!   and writes smaller than the MSS coalesce while they wait.
//! * A new segment may be started only while the bytes queued (unacknowledged +
//!   unsent) are below `sk_sndbuf` (`sk_stream_memory_free`); the segment then
//!   fills up to the MSS, so the queue can exceed the buffer by less than one
//!   MSS. When it may not, the writer copies what fitted and sleeps
//!   (`wait_for_sndbuf`), the rest of the write pending: Linux copies what fits.
//! * The sleeping writer wakes when an ACK frees space and the free space is at
//!   least half the queued bytes (`sk_stream_write_space`: `sk_stream_wspace ≥
//!   sk_stream_min_wspace`), i.e. once the queue is down to two thirds of the
//!   buffer.
//! * The application is infinitely fast: every write it can make happens at the
//!   instant it can (iperf's loop costs no simulated time; CPU cost of small
//!   writes is not modelled).
//!
//! Simplification: the queue is counted in payload bytes, not in Linux's
//! `truesize` (payload plus each skb's `struct sk_buff` and header room). That
//! overhead depends on the architecture's `sizeof(struct sk_buff)`, on whether
//! the NIC does scatter-gather (without it a small segment occupies a whole
//! MSS-sized allocation), and on skb cloning, none of which a scenario knows;
//! the kernel's doubling of `SO_SNDBUF` is its own allowance for it. The model
//! thus queues somewhat more payload than a real 2.6.20 sender with the same
//! `SO_SNDBUF` (for full 1460 B segments with ~400 B of overhead each, some 25 %).

use crate::time::SimTime;

/// What one step of the writer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteStep {
    /// A write was copied whole: the stack pushes with Nagle's rule
    /// (`tcp_push(.., tp->nonagle)`).
    Completed,
    /// The writer sleeps on a full buffer; `push`: this write copied something,
    /// which the stack pushes first (with Nagle off, `TCP_NAGLE_PUSH`; the last
    /// segment is full then, so Nagle would hold nothing anyway).
    Blocked { push: bool },
    /// Nothing to write: asleep, or all written.
    Idle,
}

/// The writer and the send buffer's accounting.
#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// Bytes per `write()` (`None`: one write of everything).
    write_size: Option<u64>,
    /// `sk_sndbuf` (already doubled; `None`: unlimited).
    sndbuf: Option<u64>,
    /// Bytes the application will write in all (`None`: forever).
    transfer: Option<u64>,
    /// Bytes the application writes in all (`u64::MAX`: forever, or before the
    /// start).
    total: u64,
    /// One past the last byte written (`tp->write_seq`).
    written: u64,
    /// Bytes of the current write not yet copied.
    left: u64,
    /// The current write has copied something (`tcp_sendmsg`'s `copied`).
    copied: bool,
    /// Asleep on a full buffer (`SOCK_NOSPACE`).
    asleep: bool,
    /// `write()` calls completed.
    pub writes: u64,
    /// When every byte of a finite transfer was acknowledged.
    finished_at: Option<SimTime>,
}

impl SendBuffer {
    /// An application writing `write_size` bytes at a time, `transfer` bytes in
    /// all (`None`: forever), into a buffer of `sndbuf` bytes (`None`: unlimited).
    pub fn new(write_size: Option<u64>, sndbuf: Option<u64>, transfer: Option<u64>) -> Self {
        SendBuffer {
            write_size,
            sndbuf,
            transfer,
            total: 0,
            written: 0,
            left: 0,
            copied: false,
            asleep: false,
            writes: 0,
            finished_at: None,
        }
    }

    /// The application starts. Without a buffer limit it has written everything
    /// at once (ns-2's FTP agent).
    pub fn start(&mut self) {
        self.total = self.transfer.unwrap_or(u64::MAX);
        if self.sndbuf.is_none() {
            self.written = self.total;
        }
    }

    /// When every byte of a finite transfer was acknowledged.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.finished_at
    }

    /// One past the last byte written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The application has written all it will (it closes: the FIN goes with
    /// the last segment, which Nagle does not hold).
    pub fn all_written(&self) -> bool {
        self.written >= self.total
    }

    /// The application stops: nothing beyond `high_water`, what was sent.
    pub fn stop(&mut self, high_water: u64) {
        self.written = self.written.min(high_water);
        self.total = self.written;
        self.left = 0;
        self.asleep = false;
    }

    /// Copies the next write, or as much of it as the buffer takes. `snd_una` and
    /// `high_water` (one past the last byte sent) place the unsent tail segment.
    pub fn step(&mut self, snd_una: u64, high_water: u64, mss: u32) -> WriteStep {
        if self.asleep {
            return WriteStep::Idle;
        }
        if self.left == 0 {
            if self.all_written() {
                return WriteStep::Idle;
            }
            let size = self.write_size.unwrap_or(u64::MAX);
            self.left = size.min(self.total - self.written);
            self.copied = false;
        }
        let mss = u64::from(mss);
        let tail = (self.written - high_water) % mss;
        if tail > 0 {
            self.copy((mss - tail).min(self.left));
        }
        while self.left > 0 {
            if self.sndbuf.is_some_and(|b| self.written - snd_una >= b) {
                self.asleep = true;
                return WriteStep::Blocked { push: self.copied };
            }
            self.copy(mss.min(self.left));
        }
        self.writes += 1;
        WriteStep::Completed
    }

    fn copy(&mut self, n: u64) {
        self.written += n;
        self.left -= n;
        self.copied = true;
    }

    /// An ACK at `now` moved `snd_una`: notes the end of a finite transfer, and
    /// wakes the writer if the free space is at least half the queued bytes.
    /// Returns whether it woke.
    pub fn on_ack(&mut self, now: SimTime, snd_una: u64) -> bool {
        if self.finished_at.is_none()
            && self.transfer.is_some()
            && self.all_written()
            && snd_una >= self.written
        {
            self.finished_at = Some(now);
        }
        let Some(buffer) = self.sndbuf else {
            return false;
        };
        let queued = self.written - snd_una;
        if self.asleep && buffer.saturating_sub(queued) >= queued / 2 {
            self.asleep = false;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the writer until it sleeps or is done, nothing being sent; returns
    /// the steps.
    fn run(b: &mut SendBuffer, snd_una: u64, high_water: u64) -> Vec<WriteStep> {
        let mut steps = Vec::new();
        loop {
            match b.step(snd_una, high_water, 1000) {
                WriteStep::Idle => return steps,
                s => steps.push(s),
            }
        }
    }

    #[test]
    fn small_writes_coalesce_and_block_at_the_buffer() {
        // sk_sndbuf 4096 B, 300 B writes, MSS 1000, nothing sent. New segments
        // start at 0, 1000, 2000, 3000 (queued 3000 < 4096) and 4000 (4000 <
        // 4096); each fills to 1000 B. At 5000 queued ≥ 4096: the 17th write has
        // copied 5000 − 16 × 300 = 200 B and sleeps, asking for a push.
        let mut b = SendBuffer::new(Some(300), Some(4096), None);
        b.start();
        let steps = run(&mut b, 0, 0);
        assert_eq!(steps.len(), 17);
        assert_eq!(b.writes, 16);
        assert_eq!(steps[16], WriteStep::Blocked { push: true });
        assert_eq!(b.written(), 5000);
    }

    #[test]
    fn a_write_extends_the_unsent_tail_only() {
        // 300 B written and sent ([0, 300) is the last segment sent): the next
        // write starts a new segment; with the tail [300, 600) unsent, the third
        // fills it to 900.
        let mut b = SendBuffer::new(Some(300), Some(1 << 20), Some(900));
        b.start();
        assert_eq!(b.step(0, 0, 1000), WriteStep::Completed);
        assert_eq!(b.step(0, 300, 1000), WriteStep::Completed);
        assert_eq!(b.step(0, 300, 1000), WriteStep::Completed);
        assert_eq!((b.written(), b.all_written()), (900, true));
        assert_eq!(b.step(0, 300, 1000), WriteStep::Idle);
    }

    #[test]
    fn the_writer_wakes_at_two_thirds_of_the_buffer() {
        // 6000 B buffer, one write of everything, MSS 1000: blocks at 6000 queued.
        let mut b = SendBuffer::new(None, Some(6000), None);
        b.start();
        assert_eq!(run(&mut b, 0, 0), vec![WriteStep::Blocked { push: true }]);
        // ACK 1000: queued 5000, free 1000 < 2500: asleep. ACK 2000: queued
        // 4000, free 2000 = 4000 / 2: wakes, and fills up to 8000.
        assert!(!b.on_ack(SimTime::ZERO, 1000));
        assert!(b.on_ack(SimTime::ZERO, 2000));
        assert_eq!(
            run(&mut b, 2000, 6000),
            vec![WriteStep::Blocked { push: true }]
        );
        assert_eq!(b.written(), 8000);
    }

    #[test]
    fn a_large_write_that_blocked_pushes_after_waking() {
        // A 2500 B write into a 2000 B buffer, MSS 1000: 2000 copied, asleep. Once
        // awake, its remaining 500 B complete it (the push is Nagle's, at the end).
        let mut b = SendBuffer::new(Some(2500), Some(2000), Some(2500));
        b.start();
        assert_eq!(run(&mut b, 0, 0), vec![WriteStep::Blocked { push: true }]);
        assert!(b.on_ack(SimTime::ZERO, 2000));
        assert_eq!(run(&mut b, 2000, 2000), vec![WriteStep::Completed]);
        assert_eq!(b.writes, 1);
    }

    #[test]
    fn without_a_buffer_limit_everything_is_written_at_once() {
        let mut b = SendBuffer::new(None, None, Some(10_000));
        b.start();
        assert_eq!(b.written(), 10_000);
        assert!(b.all_written());
    }

    #[test]
    fn a_finite_transfer_finishes_when_its_last_byte_is_acknowledged() {
        // 10 000 B, everything written at once: the ACK of 9 000 leaves the last
        // 1 000 outstanding; the ACK of 10 000 at 7 ms finishes it, and a later
        // ACK does not move the time.
        let ms = SimTime::from_millis;
        let mut b = SendBuffer::new(None, None, Some(10_000));
        b.start();
        b.on_ack(ms(5), 9_000);
        assert_eq!(b.finished_at(), None);
        b.on_ack(ms(7), 10_000);
        b.on_ack(ms(9), 10_000);
        assert_eq!(b.finished_at(), Some(ms(7)));
        // An endless writer stopped by the application never finishes: all is
        // written (nothing beyond what was sent), but no transfer was asked for.
        let mut endless = SendBuffer::new(None, None, None);
        endless.start();
        endless.stop(3_000);
        endless.on_ack(ms(7), 3_000);
        assert_eq!(endless.finished_at(), None);
    }
}
