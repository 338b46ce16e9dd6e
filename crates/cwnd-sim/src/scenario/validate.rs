//! Checking a parsed `Scenario`, with errors written for people, into the typed
//! parts of its plan (`Checked`: impairment stages, congestion controllers, cells).
//!
//! Every error names the field (as a path such as `links[2].bandwidth`), the value
//! and what is allowed. Syntax and type errors come from serde with the path
//! tracked by `serde_path_to_error` (`load.rs`); the checks below catch what types
//! cannot express (ranges, references between sections); `plan.rs` adds
//! reachability.

use super::budget::Parts;
use super::checks::FlowIds;
use super::error::ScenarioError;
use super::flows::CheckedFlow;
use super::generator::GeneratorPlan;
use super::link::{self, LinkPlan};
use super::shown::quoted;
use super::spec::Scenario;
use super::trace::{self, TracePlan};
use super::wifi::{self, WirelessPlan};
use super::wimax::{self, CellPlan};
use crate::time::SimTime;

/// What checking a scenario yields beside "it is valid": the parts it parsed
/// from untyped tables, in typed form, so that nothing is parsed twice.
pub(super) struct Checked {
    /// The run's name (`scenario` when it has none), its end and its memory budget.
    pub name: String,
    pub end: SimTime,
    pub memory_budget: u64,
    /// Per link, its ends, parameters, queue and stages.
    pub links: Vec<LinkPlan>,
    pub trace: TracePlan,
    /// Per wireless channel, its rates and impairment stages.
    pub wireless: Vec<WirelessPlan>,
    /// Per 802.16 cell, its nodes and parameters.
    pub cells: Vec<CellPlan>,
    /// Per flow, what its transport's checks yield.
    pub flows: Vec<CheckedFlow>,
    /// Per traffic generator, its plan (its routes are checked with the topology).
    pub generators: Vec<GeneratorPlan>,
}

impl Scenario {
    /// The name of link `i`: its own, or `<a>-<b>`.
    pub fn link_name(&self, i: usize) -> String {
        self.links[i].link_name()
    }

    /// Checks everything the types cannot, into the typed parts of the plan.
    pub(super) fn check(&self) -> Result<Checked, ScenarioError> {
        if self.duration.0 == SimTime::ZERO {
            return Err(ScenarioError::new(
                "duration",
                "must be positive, e.g. \"60s\"",
            ));
        }
        self.check_file_names()?;
        let nodes = self.check_nodes()?;
        let flows = FlowIds::new(
            (0..self.flows.len()).map(|i| self.flow_name(i)).collect(),
            self.flow_ids(),
        );
        if self.links.is_empty() && self.wireless.is_empty() && self.wimax.is_empty() {
            return Err(ScenarioError::new(
                "links",
                "a scenario needs at least one link, wireless channel or wimax cell",
            ));
        }
        let links = link::check(&self.links, &nodes, &flows)?;
        let wireless = wifi::check(&self.wireless, &nodes, &flows)?;
        let cells = wimax::check(&self.wimax, &nodes)?;
        self.check_routes(&nodes)?;
        let flows = self.check_flows(&nodes)?;
        let generators = self.check_generators(&nodes)?;
        let trace = trace::check(&self.trace, &nodes)?;
        let parts = Parts {
            links: &links,
            cells: &cells,
            flows: flows.iter().map(|f| f.transport.kind()).collect(),
            generators: &generators,
        };
        super::budget::check(self, &parts)?;
        Ok(Checked {
            name: self.name.clone().unwrap_or_else(|| "scenario".to_string()),
            end: self.duration.0,
            memory_budget: self
                .memory_budget
                .map_or(super::budget::DEFAULT_BUDGET, |b| b.0),
            links,
            trace,
            wireless,
            cells,
            flows,
            generators,
        })
    }

    /// Node and flow names become file names (`<node>.pcap`, `cc_metrics_<flow>.png`):
    /// a name that is a path (`../../x`, `/etc/x`) would put a file outside the
    /// output folder, so it is refused where it is written.
    fn check_file_names(&self) -> Result<(), ScenarioError> {
        let mut named: Vec<(String, &str)> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            named.push((format!("nodes[{i}].name"), &n.name));
        }
        for (i, l) in self.links.iter().enumerate() {
            for (k, name) in l.between.iter().enumerate() {
                named.push((format!("links[{i}].between[{k}]"), name));
            }
        }
        for (i, w) in self.wireless.iter().enumerate() {
            for (k, name) in w.stations.iter().enumerate() {
                named.push((format!("wireless[{i}].stations[{k}]"), name));
            }
        }
        for (i, c) in self.wimax.iter().enumerate() {
            named.push((format!("wimax[{i}].base_station"), &c.base_station));
            for (k, name) in c.subscribers.iter().enumerate() {
                named.push((format!("wimax[{i}].subscribers[{k}]"), name));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(name) = &f.name {
                named.push((format!("flows[{i}].name"), name));
            }
        }
        for (path, name) in named {
            let why = if name.contains(['/', '\\']) {
                "contains a path separator"
            } else if name.contains('\0') {
                "contains a NUL character"
            } else if name == "." || name == ".." {
                "is a relative folder"
            } else {
                continue;
            };
            return Err(ScenarioError::new(
                path,
                format!(
                    "{} {why}; node and flow names become file names",
                    quoted(name)
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
        duration = "10s"
        [[links]]
        between = ["h1", "h2"]
        bandwidth = "10Mbps"
        delay = "5ms"
        [[flows]]
        from = "h1"
        to = "h2"
    "#;

    fn error_of(toml: &str) -> String {
        Scenario::from_toml(toml).unwrap_err().to_string()
    }

    #[test]
    fn a_minimal_scenario_is_accepted_with_defaults() {
        let s = Scenario::from_toml(GOOD).unwrap();
        assert_eq!(s.flows[0].cc.name, "newreno");
        assert_eq!(s.flows[0].tcp.mss, Some(crate::units::Size(1460)));
        assert_eq!(s.node_names(), vec!["h1", "h2"]);
    }

    #[test]
    fn names_that_are_paths_are_refused_where_they_are_written() {
        let node = |name: &str| GOOD.replace("\"h1\", \"h2\"", &format!("\"{name}\", \"h2\""));
        assert_eq!(
            error_of(&node("../../x")),
            "links[0].between[0]: \"../../x\" contains a path separator; \
             node and flow names become file names"
        );
        assert!(error_of(&node("/abs/path")).starts_with("links[0].between[0]: "));
        assert!(error_of(&node("a\\\\b")).contains("path separator"));
        assert!(error_of(&node(".."))
            .ends_with("\"..\" is a relative folder; node and flow names become file names"));
        let flow = GOOD.replace("from = \"h1\"", "name = \"x/y\"\nfrom = \"h1\"");
        assert!(error_of(&flow).starts_with("flows[0].name: \"x/y\" contains a path separator"));
        // Dots inside a name are fine: only a whole "." or ".." names a folder.
        let dotted = GOOD.replace("from = \"h1\"", "name = \"v1..v2\"\nfrom = \"h1\"");
        assert!(Scenario::from_toml(&dotted).is_ok());
    }

    #[test]
    fn long_values_and_long_lists_are_cut_in_messages() {
        let long = "n".repeat(5000);
        let e = error_of(&GOOD.replace("to = \"h2\"", &format!("to = \"{long}\"")));
        assert!(e.len() < 200, "{} characters: {e}", e.len());
        assert!(e.contains("… (5000 characters) is not a node"), "{e}");
    }

    #[test]
    fn nan_and_inf_are_named_where_they_stand() {
        // TOML's nan and inf become null on the way to a stage's parameters; the
        // message must not say the parameter is missing.
        let stage = |s: &str| {
            GOOD.replace(
                "delay = \"5ms\"",
                &format!("delay = \"5ms\"\nimpairments = [{s}]"),
            )
        };
        assert_eq!(
            error_of(&stage("{ kind = \"bernoulli\", p = nan }")),
            "links[0].impairments[0].p: is not a finite number (nan or inf); give a value"
        );
        let e = error_of(&stage(
            "{ kind = \"bernoulli\", schedule = [[\"0s\", 0.1], [\"1s\", inf]] }",
        ));
        assert!(
            e.starts_with("links[0].impairments[0].schedule[1][1]: is not a finite"),
            "{e}"
        );
    }

    #[test]
    fn pcap_captures_name_known_nodes() {
        let with = |nodes: &str| format!("{GOOD}\n[trace]\npcap = {nodes}\n");
        assert!(Scenario::from_toml(&with(r#"["h1", "h2"]"#)).is_ok());
        assert_eq!(
            error_of(&with(r#"["h1", "hx"]"#)),
            "trace.pcap[1]: \"hx\" is not a node; known nodes: h1, h2"
        );
    }

    #[test]
    fn a_bad_unit_names_the_field_the_value_and_an_example() {
        let e = error_of(&GOOD.replace("\"10Mbps\"", "\"10Mbs\""));
        assert_eq!(
            e,
            "links[0].bandwidth: \"10Mbs\" is not a rate; use e.g. \"10Mbps\" (line 5)"
        );
        let json = r#"{"duration": "1s", "links": [{"between": ["a", "b"], "bandwidth": 1, "delay": "1ms"}], "flows": []}"#;
        assert_eq!(
            Scenario::from_json(json).unwrap_err().to_string(),
            "links[0].bandwidth: 1 has no unit; write a rate as a string, e.g. \"10Mbps\""
        );
    }

    #[test]
    fn unknown_keys_are_errors() {
        let e = error_of(&GOOD.replace("delay = \"5ms\"", "delay = \"5ms\"\ncolour = 3"));
        assert!(e.starts_with("links[0]"), "{e}");
        assert!(e.contains("unknown field \"colour\""), "{e}");
    }

    #[test]
    fn references_to_unknown_nodes_list_the_known_ones() {
        let e = error_of(&GOOD.replace("to = \"h2\"", "to = \"h9\""));
        assert_eq!(e, "flows[0].to: \"h9\" is not a node; known nodes: h1, h2");
    }

    #[test]
    fn zero_bandwidth_and_bad_probability_are_rejected() {
        let e = error_of(&GOOD.replace("\"10Mbps\"", "\"0Mbps\""));
        assert!(e.starts_with("links[0].bandwidth: must be positive"), "{e}");
        let lossy = GOOD.replace(
            "delay = \"5ms\"",
            "delay = \"5ms\"\nimpairments = [{ kind = \"bernoulli\", p = 1.5 }]",
        );
        assert_eq!(
            error_of(&lossy),
            "links[0].impairments[0].p: 1.5 is not a probability; use a value in [0, 1]"
        );
    }

    #[test]
    fn unknown_congestion_control_lists_the_known_ones() {
        let e = error_of(&GOOD.replace("to = \"h2\"", "to = \"h2\"\ncc = \"warp\""));
        assert!(
            e.starts_with("flows[0].cc: \"warp\" is not a congestion control"),
            "{e}"
        );
    }

    #[test]
    fn congestion_control_parameters_are_checked_with_their_path() {
        let e = error_of(&GOOD.replace(
            "to = \"h2\"",
            "to = \"h2\"\ncc = { name = \"reno\", beta = 1 }",
        ));
        assert_eq!(
            e,
            "flows[0].cc.beta: unknown field \"beta\", there are no fields"
        );
    }

    #[test]
    fn sack_and_spurious_options_name_the_field_they_need() {
        // On "rfc", where every option is off until the flow sets it.
        let rfc = format!("tcp.profile = \"rfc\"\n{GOOD}");
        let tcp = |t: &str| rfc.replace("to = \"h2\"", &format!("to = \"h2\"\n{t}"));
        assert_eq!(
            error_of(&tcp("recovery = \"sack\"")),
            "flows[0].recovery: \"sack\" needs SACK blocks; set tcp.sack = true"
        );
        assert!(Scenario::from_toml(&tcp("recovery = \"sack\"\ntcp = { sack = true }")).is_ok());
        assert_eq!(
            error_of(&tcp("tcp = { eifel = true }")),
            "flows[0].tcp.eifel: Eifel detection needs echoed timestamps; set tcp.timestamps = true"
        );
        assert_eq!(
            error_of(&tcp("tcp = { sack = true, dsack_undo = true }")),
            "flows[0].tcp.dsack_undo: needs D-SACK reports; set tcp.sack = true and tcp.dsack = true"
        );
        assert_eq!(
            error_of(&tcp("tcp = { rack = true }")),
            "flows[0].tcp.rack: RACK-TLP needs SACK blocks (RFC 8985 §4); set tcp.sack = true"
        );
        assert_eq!(
            error_of(&tcp("recovery = \"newreno\"\ntcp = { sack = true, rack = true }")),
            "flows[0].tcp.rack: RACK-TLP detects losses for SACK recovery; set recovery = \"sack\" or leave it unset"
        );
        assert_eq!(
            error_of(&tcp("tcp = { dsack = true }")),
            "flows[0].tcp.dsack: D-SACK needs tcp.sack = true"
        );
        assert_eq!(
            error_of(&tcp("tcp = { sack = true, adapt_dupthresh = true }")),
            "flows[0].tcp.adapt_dupthresh: learns from D-SACK reports; set tcp.sack = true and tcp.dsack = true"
        );
        assert_eq!(
            error_of(&tcp("tcp = { pef = 1.5 }")),
            "flows[0].tcp.pef: 1.5 is outside [0, 1]"
        );
        assert!(error_of(&tcp("tcp = { ssthresh_on_repeated_timeout = \"third\" }"))
            .starts_with("flows[0].tcp.ssthresh_on_repeated_timeout: unknown variant \"third\", expected \"keep\" or \"halve\""));
        assert!(
            Scenario::from_toml(&tcp("tcp = { ssthresh_on_repeated_timeout = \"halve\" }")).is_ok()
        );
        let all = "tcp = { sack = true, dsack = true, dsack_undo = true, timestamps = true, eifel = true, frto = true, adapt_dupthresh = true, rack = true }";
        assert!(Scenario::from_toml(&tcp(all)).is_ok());
    }

    #[test]
    fn socket_buffers_writes_and_mtu_are_checked() {
        let tcp = |t: &str| GOOD.replace("to = \"h2\"", &format!("to = \"h2\"\ntcp = {{ {t} }}"));
        assert_eq!(
            error_of(&tcp("sndbuf = \"8KB\", write_size = \"0B\"")),
            "flows[0].tcp.write_size: must be positive"
        );
        assert_eq!(
            error_of(&tcp("write_size = \"1KB\"")),
            "flows[0].tcp.write_size: needs tcp.sndbuf: an application writing in a loop into \
             an unlimited buffer never blocks, so its writes never show"
        );
        assert_eq!(
            error_of(&tcp("sndbuf = \"512B\"")),
            "flows[0].tcp.sndbuf: 512 B is below 1024 B, the smallest Linux honours (it \
             doubles the value and raises the result to SOCK_MIN_SNDBUF = 2048 B)"
        );
        assert_eq!(
            error_of(&tcp("rwnd = \"64KB\", rcvbuf = \"32KB\"")),
            "flows[0].tcp.rcvbuf: set either tcp.rwnd (the advertised window itself) or \
             tcp.rcvbuf (SO_RCVBUF, turned into a window as Linux does), not both"
        );
        // SO_RCVBUF 512 B: 1024 B, three quarters of which is a 768 B window.
        assert_eq!(
            error_of(&tcp("rcvbuf = \"512B\"")),
            "flows[0].tcp.rcvbuf: 512 B gives a window of 768 B, which is smaller than one \
             segment (1460 B)"
        );
        assert_eq!(
            error_of(&tcp("rwnd = \"1000B\"")),
            "flows[0].tcp.rwnd: 1000 B is smaller than one segment (1460 B)"
        );
        assert_eq!(
            error_of(&tcp("mtu = 60")),
            "flows[0].tcp.mtu: 60 B is outside 88 B ..= 65535 B (below 88 B Linux no longer \
             follows the MTU: tcp_sync_mss keeps at least 48 B of segment)"
        );
        // iperf -M 64K -w 2K -l 64 (iperf's K is 1024).
        let iperf = "mss = \"64KiB\", sndbuf = \"2KiB\", rcvbuf = \"2KiB\", write_size = \"64B\", nagle = false";
        let plan = super::super::load(&tcp(iperf), None).unwrap();
        let options = plan.tcp_options(0).unwrap();
        // 65536 clamped to 1500 − 40 = 1460; SO_RCVBUF 2048: sk_rcvbuf 4096, three
        // quarters 3072, less one segment 1612, but at least two: 2920.
        assert_eq!(options.advertised_mss(), 1460);
        assert_eq!(options.receive_window, 2920);
    }

    #[test]
    fn a_channel_of_more_than_a_thousand_stations_is_refused_at_once() {
        // 2 000 stations took `check` over 60 s: the routes between their 4·10⁶
        // ordered pairs, one search per destination over every pair. Refused from
        // the count, before any route is set up.
        let stations: Vec<String> = (0..2000).map(|i| format!("\"s{i}\"")).collect();
        let text = format!(
            "duration = \"1s\"\nlinks = []\n[[wireless]]\nstations = [{}]\nrate = \"11Mbps\"\n\
             [[flows]]\nfrom = \"s0\"\nto = \"s1\"\n",
            stations.join(", ")
        );
        assert_eq!(
            error_of(&text),
            "wireless[0].stations: 2000 stations; a channel has at most 1000: every ordered \
             pair of stations is a route, and setting up routes takes time that grows as \
             the cube of the stations"
        );
        let twice = text.replace(&stations.join(", "), "\"s0\", \"s1\", \"s0\"");
        assert_eq!(
            error_of(&twice),
            "wireless[0].stations[2]: \"s0\" is listed twice"
        );
    }

    #[test]
    fn wireless_radio_preamble_and_rts_are_checked() {
        let wlan = |fields: &str| {
            GOOD.replace(
                "[[flows]]",
                &format!(
                    "[[wireless]]\nstations = [\"h2\", \"m\"]\nrate = \"11Mbps\"\n{fields}\n[[flows]]"
                ),
            )
        };
        assert!(Scenario::from_toml(&wlan("radio = { distance_m = 300 }")).is_ok());
        assert_eq!(
            error_of(&wlan("preamble = \"short\"")),
            "wireless[0].basic_rate: 1 Mb/s frames need the long preamble; use 2, 5.5 or 11 Mbps with preamble = \"short\""
        );
        assert_eq!(
            error_of(&wlan("per = 0.1\nradio = { distance_m = 300 }")),
            "wireless[0].per: give either `per` or `radio` (frame errors from the SNR), not both"
        );
        assert_eq!(
            error_of(&wlan("radio = { distance_m = -3 }")),
            "wireless[0].radio.distance_m: -3 is outside the allowed range [0.1, 100000]"
        );
        assert_eq!(
            error_of(&wlan("rts_threshold = \"3000B\"")),
            "wireless[0].rts_threshold: is at most 2347 B (802.11 dot11RTSThreshold); leave it out for no RTS/CTS"
        );
        assert!(Scenario::from_toml(&wlan("msdu_lifetime = \"off\"")).is_ok());
        let ofdm = |fields: &str| wlan(fields).replace("rate = \"11Mbps\"", "rate = \"54Mbps\"");
        assert!(Scenario::from_toml(&ofdm("basic_rate = \"24Mbps\"")).is_ok());
        assert_eq!(
            error_of(&ofdm("basic_rate = \"1Mbps\"")),
            "wireless[0].basic_rate: 1000000 bit/s is not an 802.11a/g rate, as `rate` is; use 6, 9, 12, 18, 24, 36, 48 or 54 Mbps"
        );
        assert_eq!(
            error_of(&wlan("basic_rate = \"6Mbps\"")),
            "wireless[0].basic_rate: 6000000 bit/s is not an 802.11b rate, as `rate` is; use 1, 2, 5.5 or 11 Mbps"
        );
        assert_eq!(
            error_of(&ofdm("preamble = \"short\"")),
            "wireless[0].preamble: 802.11a/g has one preamble (20 µs); \"short\" is 802.11b's (use an 802.11b rate or leave `preamble` out)"
        );
        assert_eq!(
            error_of(&ofdm("radio = { distance_m = 300 }")),
            "wireless[0].radio: frame errors from the SNR are modelled for 802.11b rates only; use `per` with an 802.11a/g rate"
        );
        assert_eq!(
            error_of(&wlan("").replace("rate = \"11Mbps\"", "rate = \"27Mbps\"")),
            "wireless[0].rate: 27000000 bit/s is not an 802.11 rate; use 1, 2, 5.5 or 11 Mbps (802.11b) or 6, 9, 12, 18, 24, 36, 48 or 54 Mbps (802.11a/g)"
        );
        assert_eq!(
            error_of(&wlan("msdu_lifetime = \"0s\"")),
            "wireless[0].msdu_lifetime: must be longer than 0 s (every frame would be discarded); use \"off\" for no lifetime"
        );
        assert_eq!(
            error_of(&wlan("msdu_lifetime = \"forever\"")),
            "wireless[0].msdu_lifetime: \"forever\" is not a duration or \"off\"; use e.g. \"500ms\" (line 10)"
        );
        assert!(error_of(&wlan(
            "radio = { distance_m = 300, path_loss = \"shadowing\" }"
        ))
        .starts_with("wireless[0].radio.path_loss: unknown variant \"shadowing\""));
    }

    #[test]
    fn wimax_cells_are_checked_field_by_field() {
        let cell = |fields: &str| {
            GOOD.replace(
                "[[flows]]",
                &format!(
                    "[[wimax]]\nbase_station = \"h2\"\nsubscribers = [\"ss\"]\n{fields}\n[[flows]]"
                ),
            )
        };
        assert!(Scenario::from_toml(&cell("preset = \"nlos_snr10\"")).is_ok());
        assert_eq!(
            error_of(&cell("preset = \"rainy\"")),
            "wimax[0].preset: \"rainy\" is not a preset; use one of los_snr30, los_snr10, nlos_snr30, nlos_snr10"
        );
        assert_eq!(
            error_of(&cell("")),
            "wimax[0].snr_db: is required without a preset, e.g. snr_db = 25"
        );
        assert_eq!(
            error_of(&cell("snr_db = 75")),
            "wimax[0].snr_db: 75 dB is outside the allowed range [-20, 60]"
        );
        assert_eq!(
            error_of(&cell("snr_db = 20\nframe = \"6ms\"")),
            "wimax[0].frame: 0.006000000s is not an 802.16 OFDM frame duration; use 2.5, 4, 5, 8, 10, 12.5 or 20 ms"
        );
        assert_eq!(
            error_of(&cell("snr_db = 20\ndl_ratio = 1.5")),
            "wimax[0].dl_ratio: 1.5 is outside (0, 1)"
        );
        assert!(error_of(&cell("snr_db = 20\ndl_ratio = 0.01"))
            .starts_with("wimax[0].dl_ratio: 0.01 leaves no room for data"));
        assert_eq!(
            error_of(&cell("snr_db = 20\nmcs = \"256qam\"")),
            "wimax[0].mcs: \"256qam\" is not a scheme; use one of bpsk_1_2, qpsk_1_2, qpsk_3_4, 16qam_1_2, 16qam_3_4, 64qam_2_3, 64qam_3_4"
        );
        assert_eq!(
            error_of(&cell("snr_db = 20\ncyclic_prefix = \"1/3\"")),
            "wimax[0].cyclic_prefix: \"1/3\" is not a cyclic prefix; use \"1/4\", \"1/8\", \"1/16\" or \"1/32\""
        );
        assert_eq!(
            error_of(&cell("snr_db = 20\nbandwidth_mhz = 40")),
            "wimax[0].bandwidth_mhz: 40 MHz is outside the allowed range [1.25, 28]"
        );
        assert_eq!(
            error_of(&cell("snr_db = 20\nfading = { k_factor = -1 }")),
            "wimax[0].fading.k_factor: -1 is not a K factor; use a value ≥ 0"
        );
        assert_eq!(
            error_of(&cell("preset = \"los_snr30\"\narq = { retries = 0 }")),
            "wimax[0].arq.retries: must be at least 1 (leave `arq` out for no retransmissions)"
        );
        assert_eq!(
            error_of(&cell("preset = \"los_snr30\"\ndownlink_cap = \"0Mbps\"")),
            "wimax[0].downlink_cap: must be positive, e.g. \"30Mbps\""
        );
        let own = GOOD.replace(
            "[[flows]]",
            "[[wimax]]\nbase_station = \"h2\"\nsubscribers = [\"h2\"]\npreset = \"los_snr30\"\n[[flows]]",
        );
        assert_eq!(
            error_of(&own),
            "wimax[0].subscribers[0]: \"h2\" is the base station"
        );
    }

    #[test]
    fn syntax_errors_are_one_line() {
        let e = error_of("duration = ");
        assert!(e.starts_with("TOML syntax"), "{e}");
        assert!(!e.contains('\n'));
    }
}
