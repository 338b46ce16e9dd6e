//! The network: media behind one trait (`medium`): links with their queues (queue
//! disciplines: `qdisc`), capacities and impairments, 802.11 channels, 802.16 cells;
//! and static routing.

mod any_medium;
pub mod capacity;
pub mod impair;
pub mod link;
pub mod medium;
pub mod qdisc;
pub mod queue;
pub mod red;
pub mod routing;
pub mod sojourn;
pub mod wifi;
pub mod wimax;
