//! The world's traffic generators from the plan: each one's source of arrivals
//! (rate from its target load, `traffic::arrival_rate`) on its own named random
//! streams, and the template its connections are built from.

use super::spec::{GeneratorModel, GeneratorPlan};
use crate::rng;
use crate::scenario::tcp::tcp_agents;
use crate::traffic::{arrival_rate, FtpGenerator, Generator, WebGenerator};
use crate::world::{ConnectionTemplate, TrafficGenerator};

/// Streams: `generators[g].arrivals` (FTP files, Web sessions), `.sizes`, and for
/// the Web model `.pages` (pages, objects, think times); each connection's
/// controller draws from `generators[g].connections[n].cc`.
pub fn build(generators: &[GeneratorPlan], seed: u64) -> Vec<TrafficGenerator> {
    generators
        .iter()
        .enumerate()
        .map(|(g, p)| {
            let stream = |what: &str| rng::stream(seed, &format!("generators[{g}].{what}"));
            let rate = arrival_rate(p.load, p.capacity_bps, p.model.mean_unit_bytes());
            let source = match p.model {
                GeneratorModel::Ftp { mean_file_bytes } => Generator::Ftp(FtpGenerator::new(
                    p.start,
                    rate,
                    mean_file_bytes,
                    stream("arrivals"),
                    stream("sizes"),
                )),
                GeneratorModel::Web(web) => Generator::Web(WebGenerator::new(
                    p.start,
                    rate,
                    web,
                    stream("arrivals"),
                    stream("pages"),
                    stream("sizes"),
                )),
            };
            // The size is set per connection (`world::connections`).
            let (sender, receiver) =
                tcp_agents(&p.tcp.options, p.tcp.recovery, p.tcp.cc.needs_ecn(), None);
            TrafficGenerator {
                name: p.name.clone(),
                cc: p.tcp.cc.name().to_string(),
                src: p.src,
                dst: p.dst,
                link: p.link.clone(),
                capacity_bps: p.capacity_bps,
                target_load: p.load,
                start: p.start,
                stop: p.stop,
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
