//! The wall clock of live mode and precise sleeping until a deadline.
//!
//! Model time is `CLOCK_MONOTONIC` minus the run's epoch (the same clock as
//! Python's `time.monotonic_ns`, so that the front end starts the kernel
//! connections at their scenario start times on the relay's time axis).
//! Sleeping uses `ppoll` (nanosecond timeout, woken early by a readable TUN
//! device) with the thread's timer slack set to 1 ns (prctl(2) PR_SET_TIMERSLACK;
//! the default 50 µs would be added to every wake-up), then spins for the last
//! `SPIN_NS`, which absorbs the scheduler's wake-up latency.

use std::os::fd::RawFd;

/// The final stretch before a deadline spent spinning instead of sleeping.
pub const SPIN_NS: u64 = 50_000;

/// `CLOCK_MONOTONIC` in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sets this thread's timer slack to 1 ns (the smallest allowed).
pub fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Pins the calling thread to one CPU; false if the kernel refused.
pub fn pin_to_cpu(cpu: usize) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the calls only read it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Moves the calling thread to the real-time class (sched(7) SCHED_FIFO, priority
/// 10): on a busy host an ordinary thread waits for a time slice after each
/// wake-up, which is the relay's timing error. The kernel's RT throttling
/// (sched_rt_runtime_us, 95 % by default) keeps a spinning relay from taking a
/// whole CPU. False if refused (no CAP_SYS_NICE).
pub fn realtime_priority() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: a valid sched_param for the calling thread (pid 0).
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Waits until `deadline_ns` (monotonic) or until one of `fds` is readable,
/// whichever comes first; returns true when input is ready (or a signal came).
/// `fds` are always polled, even for a deadline already past, so that a stop
/// request is seen however busy the relay is.
pub fn wait_until(deadline_ns: u64, fds: &mut [libc::pollfd]) -> bool {
    let sleep = deadline_ns.saturating_sub(monotonic_ns() + SPIN_NS);
    let ts = libc::timespec {
        tv_sec: (sleep / 1_000_000_000) as libc::time_t,
        tv_nsec: (sleep % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `fds` is a valid array of its length; no signal mask is changed.
    let ready = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    if ready != 0 {
        return true;
    }
    while monotonic_ns() < deadline_ns {
        std::hint::spin_loop();
    }
    false
}

/// CPU time used by the calling thread, in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A poll entry waiting for input on `fd`.
pub fn readable(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_reaches_the_deadline_and_not_much_later() {
        tighten_timer_slack();
        let deadline = monotonic_ns() + 2_000_000; // 2 ms ahead
        assert!(!wait_until(deadline, &mut []));
        let late = monotonic_ns() - deadline;
        assert!(monotonic_ns() >= deadline);
        // Never early is the rule; how late is the host's: a loaded machine preempts
        // the spin for milliseconds (5.2 ms seen beside a CPU burner on 2 cores), and
        // the relay's own statistics measure precision. 1 s only catches a unit slip
        // (the 2 ms sleep taken as µs or s would wake 2 s late or never).
        assert!(late < 1_000_000_000, "woke {late} ns late");
    }
}
