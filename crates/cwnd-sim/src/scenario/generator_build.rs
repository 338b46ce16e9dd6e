//! The world's traffic generators from the plan: each one's source of arrivals
//! (rate from its target load, `traffic::arrival_rate`) on its own named random
//! streams, and the template its connections are built from.

use super::build::tcp_agents;
use super::plan::Plan;
use super::spec::{AppSpec, GeneratorKind};
use crate::rng;
use crate::traffic::{arrival_rate, FtpGenerator, Generator, WebGenerator};
use crate::world::{ConnectionTemplate, TrafficGenerator};

/// Streams: `generators[g].arrivals` (FTP files, Web sessions), `.sizes`, and for
/// the Web model `.pages` (pages, objects, think times); each connection's
/// controller draws from `generators[g].connections[n].cc`.
pub fn generators(plan: &Plan, seed: u64) -> Vec<TrafficGenerator> {
    let spec = plan.spec();
    spec.generators
        .iter()
        .zip(&plan.generators)
        .enumerate()
        .map(|(g, (s, p))| {
            let stream = |what: &str| rng::stream(seed, &format!("generators[{g}].{what}"));
            let rate = arrival_rate(s.load, p.capacity_bps, s.mean_unit_bytes());
            let start = s.start.0;
            let source = match s.kind {
                GeneratorKind::Ftp => Generator::Ftp(FtpGenerator::new(
                    start,
                    rate,
                    s.mean_unit_bytes(),
                    stream("arrivals"),
                    stream("sizes"),
                )),
                GeneratorKind::Web => Generator::Web(WebGenerator::new(
                    start,
                    rate,
                    s.web_params(),
                    stream("arrivals"),
                    stream("pages"),
                    stream("sizes"),
                )),
            };
            // The size is set per connection (`world::connections`).
            let (sender, receiver) = tcp_agents(&p.tcp.options, p.tcp.recovery, &AppSpec::Bulk);
            TrafficGenerator {
                name: spec.generator_name(g),
                cc: p.tcp.cc.name().to_string(),
                src: p.src,
                dst: p.dst,
                link: s.link.clone(),
                capacity_bps: p.capacity_bps,
                target_load: s.load,
                start,
                stop: s.stop.map_or(spec.duration.0, |t| t.0),
                source,
                template: ConnectionTemplate {
                    sender,
                    receiver,
                    cc: p.tcp.cc.clone(),
                    timestamps: p.tcp.options.timestamps,
                },
            }
        })
        .collect()
}
