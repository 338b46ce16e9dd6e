//! The network: links with their queues and impairments, and static routing.

pub mod impair;
pub mod link;
pub mod queue;
pub mod red;
pub mod routing;
pub mod wifi;
pub mod wimax;
