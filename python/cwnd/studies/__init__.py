"""The published studies cwnd reproduces, one module each; docs/studies.md
summarises each paper, its set-up and what was chosen where it is silent.

`STUDIES` maps a study's name to its declaration; `reproduce` runs one.
"""

from cwnd.studies import arq, coexist, outage, reorder, wimax
from cwnd.studies.study import Study, StudyReport, reproduce

STUDIES: dict[str, Study] = {
    s.name: s for s in (outage.STUDY, coexist.STUDY, wimax.STUDY, arq.STUDY, reorder.STUDY)
}

__all__ = ["STUDIES", "Study", "StudyReport", "reproduce"]
