//! The checks of a TCP sender's resolved options: ranges, the options that need
//! another one, socket buffers, and a window of at least one segment. Every
//! error names the field under its path (`flows[0].tcp.rwnd`).

use super::options::TcpOptions;
use crate::scenario::checks::check_rto;
use crate::scenario::error::ScenarioError;
use crate::transport::tcp::socket_options::{SOCK_MIN_RCVBUF, SOCK_MIN_SNDBUF};
use crate::units::Size;

impl TcpOptions {
    /// Ranges and the options that need another one; `rwnd` as written (the
    /// options keep only the window it gives).
    pub(super) fn check(
        &self,
        rwnd: Option<Size>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
        // Any larger MSS is clamped to the MTU (`advertised_mss`).
        if self.mss == 0 {
            return Err(ScenarioError::new(at("mss"), "must be positive"));
        }
        for (field, value) in [
            ("abc_limit", self.abc_limit),
            ("dupthresh", self.dupthresh),
            ("delayed_ack_every", self.delayed_ack_every),
        ] {
            if value == 0 {
                let what = if field == "abc_limit" { " segment" } else { "" };
                return Err(ScenarioError::new(
                    at(field),
                    format!("must be at least 1{what}"),
                ));
            }
        }
        self.check_socket_options(rwnd, at)?;
        let needs = [
            (
                "dsack_undo",
                self.dsack_undo && !(self.sack && self.dsack),
                "needs D-SACK reports; set tcp.sack = true and tcp.dsack = true",
            ),
            (
                "adapt_dupthresh",
                self.adapt_dupthresh && !(self.sack && self.dsack),
                "learns from D-SACK reports; set tcp.sack = true and tcp.dsack = true",
            ),
            (
                "eifel",
                self.eifel && !self.timestamps,
                "Eifel detection needs echoed timestamps; set tcp.timestamps = true",
            ),
            (
                "dsack",
                self.dsack && !self.sack,
                "D-SACK needs tcp.sack = true",
            ),
            (
                "rack",
                self.rack && !self.sack,
                "RACK-TLP needs SACK blocks (RFC 8985 §4); set tcp.sack = true",
            ),
            (
                "quickack",
                self.quickack && !self.delayed_ack,
                "quick-ACK mode is how a delayed-ACK receiver stops delaying; set \
                 tcp.delayed_ack = true",
            ),
        ];
        if let Some((field, _, message)) = needs.iter().find(|n| n.1) {
            return Err(ScenarioError::new(at(field), *message));
        }
        for (field, v) in [("pef", self.pef), ("pef_step", self.pef_step)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ScenarioError::new(
                    at(field),
                    format!("{v} is outside [0, 1]"),
                ));
            }
        }
        check_rto(&at("rto"), &self.rto)
    }

    /// The MTU, buffers and writes.
    fn check_socket_options(
        &self,
        rwnd: Option<Size>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ScenarioError> {
        if !(88..=65_535).contains(&self.mtu) {
            return Err(ScenarioError::new(
                at("mtu"),
                format!(
                    "{} B is outside 88 B ..= 65535 B (below 88 B Linux no longer follows \
                     the MTU: tcp_sync_mss keeps at least 48 B of segment)",
                    self.mtu
                ),
            ));
        }
        if rwnd.is_some() && self.rcvbuf.is_some() {
            return Err(ScenarioError::new(
                at("rcvbuf"),
                "set either tcp.rwnd (the advertised window itself) or tcp.rcvbuf \
                 (SO_RCVBUF, turned into a window as Linux does), not both",
            ));
        }
        let minimums = [
            ("sndbuf", self.sndbuf, SOCK_MIN_SNDBUF, "SOCK_MIN_SNDBUF"),
            ("rcvbuf", self.rcvbuf, SOCK_MIN_RCVBUF, "SOCK_MIN_RCVBUF"),
        ];
        for (field, value, floor, name) in minimums {
            if let Some(v) = value.filter(|v| 2 * v.0 < floor) {
                return Err(ScenarioError::new(
                    at(field),
                    format!(
                        "{} B is below {} B, the smallest Linux honours (it doubles the \
                         value and raises the result to {name} = {floor} B)",
                        v.0,
                        floor / 2
                    ),
                ));
            }
        }
        match (self.write_size, self.sndbuf) {
            (Some(w), _) if w.0 == 0 => {
                Err(ScenarioError::new(at("write_size"), "must be positive"))
            }
            (Some(_), None) => Err(ScenarioError::new(
                at("write_size"),
                "needs tcp.sndbuf: an application writing in a loop into an unlimited \
                 buffer never blocks, so its writes never show",
            )),
            _ => Ok(()),
        }
    }

    /// The initial and the advertised window, once resolved.
    pub(super) fn check_window(&self, at: &dyn Fn(&str) -> String) -> Result<(), ScenarioError> {
        if self.initial_window == 0 {
            return Err(ScenarioError::new(
                at("initial_window"),
                "must be at least 1 segment",
            ));
        }
        let (window, segment) = (self.receive_window, u64::from(self.advertised_mss()));
        if window >= segment {
            return Ok(());
        }
        // Only a window the flow sets can be this small (the profiles' are not).
        let (field, given) = match self.rcvbuf {
            Some(b) => (
                "rcvbuf",
                format!("{} B gives a window of {window} B, which is", b.0),
            ),
            None => ("rwnd", format!("{window} B is")),
        };
        Err(ScenarioError::new(
            at(field),
            format!("{given} smaller than one segment ({segment} B)"),
        ))
    }
}
