"""The published studies cwnd reproduces, one module each; docs/studies.md
summarises each paper, its set-up and what was chosen where it is silent.

`STUDIES` maps a study's name to its declaration; `reproduce` runs one.
"""

from dataclasses import replace

from cwnd.studies import arq, coexist, outage, reorder, wimax, wimax_live
from cwnd.studies.study import Study, StudyReport, reproduce

#: wimax's live half reads wimax's constants, so it is attached here, not in wimax.py.
WIMAX = replace(wimax.STUDY, live=wimax_live.reproduce_live)

STUDIES: dict[str, Study] = {
    s.name: s for s in (outage.STUDY, coexist.STUDY, WIMAX, arq.STUDY, reorder.STUDY)
}

__all__ = ["STUDIES", "Study", "StudyReport", "reproduce"]
