//! Prints the 802.11b DCF saturation throughput for 1 … 50 stations, as CSV
//! (`stations,access,mbps`), for tools/link_figures.py: 11 Mb/s data, 1 Mb/s ACKs,
//! long preamble, 1500-byte packets, 100 s of channel time per point.

use cwnd_sim::net::wifi::frame_errors::DsssRate;
use cwnd_sim::net::wifi::saturation::saturation_throughput;
use cwnd_sim::net::wifi::timing::{Access, Phy};

fn main() {
    let phy = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
    println!("stations,access,mbps");
    for (access, name) in [(Access::Basic, "basic"), (Access::RtsCts, "rts_cts")] {
        for n in (1..=50).filter(|n| *n <= 10 || n % 5 == 0) {
            let mbps = saturation_throughput(n, &phy, access, 100, 1) / 1e6;
            println!("{n},{name},{mbps:.4}");
        }
    }
}
