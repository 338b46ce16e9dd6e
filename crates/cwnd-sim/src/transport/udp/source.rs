//! A UDP flow's traffic source: when each datagram leaves.

use super::cbr::Cbr;
use super::on_off::OnOff;
use crate::rng::RngStream;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub enum Source {
    Cbr(Cbr),
    OnOff(OnOff),
}

impl Source {
    /// The time of the next datagram (never earlier than the previous one).
    pub fn next_send(&mut self, rng: &mut RngStream) -> SimTime {
        match self {
            Source::Cbr(s) => s.next_send(rng),
            Source::OnOff(s) => s.next_send(rng),
        }
    }
}
