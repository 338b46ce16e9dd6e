//! The rows of the sample tables (`series`, `throughput`, `segments`, `cc_metrics`,
//! `queues`, and SCTP's `association_series`, `path_series`, `chunks`,
//! `sctp_events`): one record per sample, carrying the index of its flow,
//! association or link, that serializes (serde) to one column per field under the
//! name docs/results.md documents — as the summaries do (`serialize.rs`). The traces
//! keep columns (`trace/`, for memory); these iterators read them a row at a time,
//! and the bindings turn any such records into numpy columns without naming one.
//!
//! Every record derives `Default`: an empty table still has its columns, and their
//! types come from the default record.

use serde::{Serialize, Serializer};

use super::serialize::{secs, secs_or_nan};
use super::{AssociationResult, FlowResult, LinkResult, RunResults};
use crate::time::SimTime;
use crate::transport::tcp::tcb::INFINITE_SSTHRESH;

/// Seconds, with `SimTime::MAX` ("not yet measured": no RTT sample) as NaN.
fn secs_unless_max<S: Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(if *t == SimTime::MAX {
        f64::NAN
    } else {
        t.as_secs_f64()
    })
}

/// A window in segments, as a float column (ssthresh's NaN shares its type).
fn segments<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(f64::from(*v))
}

/// ssthresh in segments, NaN while it is "infinite" (before the first loss).
fn ssthresh<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(if *v >= INFINITE_SSTHRESH {
        f64::NAN
    } else {
        f64::from(*v)
    })
}

/// One sample of a TCP flow's state (`series`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SeriesRow {
    pub flow: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    #[serde(serialize_with = "segments")]
    pub cwnd: u32,
    #[serde(serialize_with = "ssthresh")]
    pub ssthresh: u32,
    #[serde(serialize_with = "secs_unless_max")]
    pub srtt: SimTime,
    #[serde(serialize_with = "secs")]
    pub rto: SimTime,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub delivered: u64,
}

/// Goodput and throughput of one flow in one bin (`throughput`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ThroughputRow {
    pub flow: u32,
    /// Start of the bin, in seconds.
    pub time: f64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
}

/// One transmission of a data segment (`segments`, with `trace.segments`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SegmentRow {
    pub flow: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub seq: u64,
    pub len: u32,
    pub retransmission: bool,
}

/// One number a controller reported (`cc_metrics`): the metric as a code into the
/// run's metric names (`RunResults::cc_metric_names`), a categorical.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct CcMetricRow {
    pub flow: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub metric: u32,
    pub value: f64,
}

/// One sample of a link direction's queue (`queues`, with `trace.queues`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct QueueRow {
    pub link: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub packets: u32,
    pub bytes: u64,
}

/// One packet leaving a traced link direction's queue for its transmitter, and how
/// long it waited (`queue_delays`, with `trace.queues`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct QueueDelayRow {
    pub link: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    #[serde(serialize_with = "secs")]
    pub delay: SimTime,
}

/// One sample of an association's state (`association_series`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct AssociationSeriesRow {
    pub association: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub cumulative_tsn: u64,
    pub highest_tsn: u64,
    pub delivered: u64,
    pub dupthresh: u32,
    pub fast_recovery: bool,
}

/// One sample of a path's state (`path_series`): windows in full chunks (bytes /
/// the association's largest chunk, the counterpart of TCP's segments) and in bytes.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PathSeriesRow {
    pub association: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub path: u8,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub flight: f64,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub flight_bytes: u64,
    #[serde(serialize_with = "secs_unless_max")]
    pub srtt: SimTime,
    #[serde(serialize_with = "secs")]
    pub rto: SimTime,
    pub active: bool,
}

/// One transmission of a DATA chunk (`chunks`, with `trace.segments`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ChunkRow {
    pub association: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub tsn: u64,
    pub path: u8,
    pub len: u32,
    /// 0 for the first transmission, n for the nth retransmission.
    pub copy: u8,
    pub retransmission: bool,
    /// A retransmission that was not needed.
    pub spurious: bool,
}

/// A fast retransmit or timeout of an association (`sctp_events`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SctpEventRow {
    pub association: u32,
    #[serde(serialize_with = "secs")]
    pub time: SimTime,
    pub kind: &'static str,
    pub path: u8,
    pub chunks: u64,
    pub spurious: bool,
    pub detected: bool,
    #[serde(serialize_with = "secs_or_nan")]
    pub detected_time: Option<SimTime>,
}

impl FlowResult {
    /// The rows of this flow's series, `flow` being its index.
    fn series_rows(&self, flow: u32) -> impl Iterator<Item = SeriesRow> + '_ {
        let s = &self.series;
        // Columns cut to one length, so that indexing them needs no bounds checks.
        let n = s.len();
        let (time, cwnd, ssthresh) = (&s.time[..n], &s.cwnd[..n], &s.ssthresh[..n]);
        let (srtt, rto, delivered) = (&s.srtt[..n], &s.rto[..n], &s.delivered[..n]);
        let (snd_una, snd_nxt) = (&s.snd_una[..n], &s.snd_nxt[..n]);
        (0..n).map(move |i| SeriesRow {
            flow,
            time: time[i],
            cwnd: cwnd[i],
            ssthresh: ssthresh[i],
            srtt: srtt[i],
            rto: rto[i],
            snd_una: snd_una[i],
            snd_nxt: snd_nxt[i],
            delivered: delivered[i],
        })
    }

    /// The rows of this flow's segment trace (none without `trace.segments`).
    fn segment_rows(&self, flow: u32) -> impl Iterator<Item = SegmentRow> + '_ {
        self.segments.iter().flat_map(move |s| {
            let n = s.time.len();
            let (time, seq, len) = (&s.time[..n], &s.seq[..n], &s.len[..n]);
            let retransmission = &s.retransmission[..n];
            (0..n).map(move |i| SegmentRow {
                flow,
                time: time[i],
                seq: seq[i],
                len: len[i],
                retransmission: retransmission[i],
            })
        })
    }
}

impl LinkResult {
    /// The rows of this link direction's queue trace (none without `trace.queues`).
    fn queue_rows(&self, link: u32) -> impl Iterator<Item = QueueRow> + '_ {
        self.queue.iter().flat_map(move |q| {
            (0..q.time.len()).map(move |i| QueueRow {
                link,
                time: q.time[i],
                packets: q.packets[i],
                bytes: q.bytes[i],
            })
        })
    }

    /// The departures of this link direction's queue trace (none without
    /// `trace.queues`).
    fn queue_delay_rows(&self, link: u32) -> impl Iterator<Item = QueueDelayRow> + '_ {
        self.queue.iter().flat_map(move |q| {
            (0..q.departure.len()).map(move |i| QueueDelayRow {
                link,
                time: q.departure[i],
                delay: q.sojourn[i],
            })
        })
    }
}

impl AssociationResult {
    /// The rows of this association's series, `association` being its index.
    fn series_rows(&self, association: u32) -> impl Iterator<Item = AssociationSeriesRow> + '_ {
        let s = &self.series;
        (0..s.len()).map(move |i| AssociationSeriesRow {
            association,
            time: s.time[i],
            cumulative_tsn: s.cumulative_tsn[i],
            highest_tsn: s.highest_tsn[i],
            delivered: s.delivered[i],
            dupthresh: s.dupthresh[i],
            fast_recovery: s.fast_recovery[i],
        })
    }

    /// The rows of this association's path series.
    fn path_series_rows(&self, association: u32) -> impl Iterator<Item = PathSeriesRow> + '_ {
        let s = &self.path_series;
        let chunk = self.summary.pmdcs as f64;
        (0..s.len()).map(move |i| PathSeriesRow {
            association,
            time: s.time[i],
            path: s.path[i],
            cwnd: s.cwnd[i] as f64 / chunk,
            ssthresh: s.ssthresh[i] as f64 / chunk,
            flight: s.flight[i] as f64 / chunk,
            cwnd_bytes: s.cwnd[i],
            ssthresh_bytes: s.ssthresh[i],
            flight_bytes: s.flight[i],
            srtt: s.srtt[i],
            rto: s.rto[i],
            active: s.active[i],
        })
    }

    /// The rows of this association's chunk trace (none without `trace.segments`).
    fn chunk_rows(&self, association: u32) -> impl Iterator<Item = ChunkRow> + '_ {
        self.chunks.iter().flat_map(move |c| {
            (0..c.len()).map(move |i| ChunkRow {
                association,
                time: c.time[i],
                tsn: c.tsn[i],
                path: c.path[i],
                len: c.len[i],
                copy: c.copy[i],
                retransmission: c.copy[i] > 0,
                spurious: self.chunk_spurious[i],
            })
        })
    }

    /// This association's retransmission events.
    fn event_rows(&self, association: u32) -> impl Iterator<Item = SctpEventRow> + '_ {
        self.events.iter().map(move |e| SctpEventRow {
            association,
            time: e.time,
            kind: e.kind,
            path: e.path,
            chunks: e.chunks,
            spurious: e.spurious,
            detected: e.detected.is_some(),
            detected_time: e.detected,
        })
    }
}

/// A table's rows, with their number known beforehand (`size_hint`), so that the
/// columns they fill are allocated once.
pub struct Rows<I> {
    rows: I,
    left: usize,
}

impl<I: Iterator> Rows<I> {
    fn new(count: usize, rows: I) -> Self {
        Rows { rows, left: count }
    }
}

impl<I: Iterator> Iterator for Rows<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        let row = self.rows.next()?;
        self.left = self.left.saturating_sub(1);
        Some(row)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// Every row of a table whose rows come per flow, association or link (`of`),
/// each given its index; `count` is how many a part has.
fn indexed<'a, P: 'a, R, I: Iterator<Item = R> + 'a>(
    parts: &'a [P],
    count: impl Fn(&P) -> usize,
    of: impl Fn(&'a P, u32) -> I + 'a,
) -> Rows<impl Iterator<Item = R> + 'a> {
    let n = parts.iter().map(count).sum();
    Rows::new(n, parts.iter().zip(0u32..).flat_map(move |(p, i)| of(p, i)))
}

impl RunResults {
    /// The `series` table: every TCP flow's samples.
    pub fn series_rows(&self) -> Rows<impl Iterator<Item = SeriesRow> + '_> {
        indexed(&self.flows, |f| f.series.len(), FlowResult::series_rows)
    }

    /// The `segments` table: every TCP flow's transmissions.
    pub fn segment_rows(&self) -> Rows<impl Iterator<Item = SegmentRow> + '_> {
        let count = |f: &FlowResult| f.segments.as_ref().map_or(0, |s| s.time.len());
        indexed(&self.flows, count, FlowResult::segment_rows)
    }

    /// The `queues` table: every traced link direction's queue samples.
    pub fn queue_rows(&self) -> Rows<impl Iterator<Item = QueueRow> + '_> {
        let count = |l: &LinkResult| l.queue.as_ref().map_or(0, |q| q.time.len());
        indexed(&self.links, count, LinkResult::queue_rows)
    }

    /// The `queue_delays` table: every traced link direction's departures.
    pub fn queue_delay_rows(&self) -> Rows<impl Iterator<Item = QueueDelayRow> + '_> {
        let count = |l: &LinkResult| l.queue.as_ref().map_or(0, |q| q.departure.len());
        indexed(&self.links, count, LinkResult::queue_delay_rows)
    }

    /// The `association_series` table.
    pub fn association_series_rows(&self) -> Rows<impl Iterator<Item = AssociationSeriesRow> + '_> {
        let count = |a: &AssociationResult| a.series.len();
        indexed(&self.associations, count, AssociationResult::series_rows)
    }

    /// The `path_series` table.
    pub fn path_series_rows(&self) -> Rows<impl Iterator<Item = PathSeriesRow> + '_> {
        let count = |a: &AssociationResult| a.path_series.len();
        indexed(
            &self.associations,
            count,
            AssociationResult::path_series_rows,
        )
    }

    /// The `chunks` table.
    pub fn chunk_rows(&self) -> Rows<impl Iterator<Item = ChunkRow> + '_> {
        let count = |a: &AssociationResult| a.chunks.as_ref().map_or(0, |c| c.len());
        indexed(&self.associations, count, AssociationResult::chunk_rows)
    }

    /// The `sctp_events` table.
    pub fn sctp_event_rows(&self) -> Rows<impl Iterator<Item = SctpEventRow> + '_> {
        let count = |a: &AssociationResult| a.events.len();
        indexed(&self.associations, count, AssociationResult::event_rows)
    }

    /// Goodput and throughput per bin of every flow (TCP, then SCTP, then UDP) over
    /// the whole run.
    pub fn throughput_rows(&self) -> Rows<impl Iterator<Item = ThroughputRow> + '_> {
        let width = self.throughput_bin.as_nanos();
        let bins = self.duration.as_nanos().div_ceil(width) as usize;
        let w = self.throughput_bin.as_secs_f64();
        let tcp = self.flows.iter().map(|f| (&f.delivered_bins, &f.sent_bins));
        let sctp = self
            .associations
            .iter()
            .map(|a| (&a.delivered_bins, &a.sent_bins));
        let udp = self.udp.iter().map(|u| (&u.delivered_bins, &u.sent_bins));
        let flows = self.flows.len() + self.associations.len() + self.udp.len();
        let rows =
            tcp.chain(sctp)
                .chain(udp)
                .enumerate()
                .flat_map(move |(i, (delivered, sent))| {
                    let (delivered, sent) = (delivered.padded(bins), sent.padded(bins));
                    (0..bins).map(move |b| ThroughputRow {
                        flow: i as u32,
                        time: b as f64 * w,
                        goodput_bps: delivered[b] as f64 * 8.0 / w,
                        throughput_bps: sent[b] as f64 * 8.0 / w,
                    })
                });
        Rows::new(flows * bins, rows)
    }

    /// The names of the controllers' metrics, in order of first appearance: what
    /// `cc_metric_rows`' codes index.
    pub fn cc_metric_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for m in self.flows.iter().filter_map(|f| f.cc_metrics.as_ref()) {
            for &name in &m.name {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Every flow's controller numbers in long form, the metric coded into `names`
    /// (`cc_metric_names`).
    pub fn cc_metric_rows<'a>(
        &'a self,
        names: &'a [&'static str],
    ) -> Rows<impl Iterator<Item = CcMetricRow> + 'a> {
        let count = |f: &FlowResult| f.cc_metrics.as_ref().map_or(0, |m| m.len());
        let of = move |f: &'a FlowResult, flow| {
            let m = f.cc_metrics.iter();
            m.flat_map(move |m| {
                (0..m.len()).map(move |i| CcMetricRow {
                    flow,
                    time: m.time[i],
                    metric: names
                        .iter()
                        .position(|&n| n == m.name[i])
                        .expect("cc_metric_names lists every metric")
                        as u32,
                    value: m.value[i],
                })
            })
        };
        indexed(&self.flows, count, of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexed_rows_carry_their_part_index_and_announce_their_count() {
        // Three parts of 2, 0 and 1 rows: 3 rows, indexed 0, 0 and 2.
        let parts = [vec![10, 11], vec![], vec![12]];
        let mut rows = indexed(&parts, Vec::len, |p, i| p.iter().map(move |&x| (i, x)));
        assert_eq!(rows.size_hint(), (3, Some(3)));
        assert_eq!(rows.next(), Some((0, 10)));
        assert_eq!(rows.size_hint(), (2, Some(2)));
        assert_eq!(rows.collect::<Vec<_>>(), vec![(0, 11), (2, 12)]);
    }
}
