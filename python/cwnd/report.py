"""`results/index.html`: one page with every reproduced study — its parameters, its
figures and its claims next to what was measured.

The page is self-contained (inline CSS, images by relative path, no script, nothing
fetched), so it opens from a file system, a web server or an archive alike.
"""

from __future__ import annotations

import html
from pathlib import Path

import cwnd
from cwnd import atomic
from cwnd.studies.study import StudyReport, Verdict

CSS = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2.2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; width: 100%; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 4px 6px; vertical-align: top; text-align: left; }
th { background: #f4f4f4; }
td.agree { background: #e3f5e1; } td.disagree { background: #fbe3e1; }
td.not-measurable { background: #f1f1f1; }
figure { display: block; margin: 1.2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
.quick { background: #fff3cd; border: 2px solid #e0a800; padding: 0.6em 1em;
         font-weight: bold; }
figcaption { font-size: 0.88em; color: #444; }
.quote { font-style: italic; } .muted { color: #666; font-size: 0.9em; }
"""


#: The title of a quick reproduction's page, and the banner that says why.
QUICK_TITLE = "cwnd: reproduced studies — QUICK RUN"
QUICK_BANNER = (
    "Quick run: reduced grids and fewer seeds, to check that everything works. The "
    "numbers and verdicts below are not the reproduction; run <code>cwnd reproduce all"
    "</code> without <code>--quick</code> (it writes <code>results/index.html</code>)."
)


def write_index(reports: list[StudyReport], out: Path) -> Path:
    """Writes `out/index.html` for the studies of `reports` (paths relative to `out`).
    A quick reproduction says so in its title and in a banner; example scenarios run
    into `out/scenarios/` (`cwnd run-all`) are linked."""
    e = html.escape
    quick = any(r.quick for r in reports)
    title = QUICK_TITLE if quick else "cwnd: reproduced studies"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        *([f'<p class="quick">{QUICK_BANNER}</p>'] if quick else []),
        f'<p class="muted">cwnd {e(cwnd.__version__)}. Every figure and number below comes '
        "from runs named in the Parquet tables beside it (run key = scenario hash + seed + "
        "version). A claim is quoted from its paper; the rule says when a measurement "
        "agrees; nothing was tuned toward a paper's figure.</p>",
        "<ul>",
    ]
    parts += [f'<li><a href="#{e(r.study.name)}">{e(r.study.title)}</a></li>' for r in reports]
    if (out / "scenarios" / "index.html").is_file():
        parts.append('<li><a href="scenarios/index.html">Example scenarios</a> (one run each)</li>')
    parts.append("</ul>")
    for report in reports:
        parts += _study_section(report, out)
    parts.append("</body></html>")
    path = out / "index.html"
    atomic.write_text(path, "\n".join(parts) + "\n")
    return path


def _study_section(report: StudyReport, out: Path) -> list[str]:
    e = html.escape
    s = report.study
    rel = report.folder.relative_to(out)
    mode = "quick run (reduced grid)" if report.quick else "full grid"
    counts = {v: sum(c.measured.verdict is v for c in report.claims) for v in Verdict}
    tally = ", ".join(f"{n} {v.value}" for v, n in counts.items())
    lines = [
        f'<h2 id="{e(s.name)}">{e(s.title)}</h2>',
        f"<p>{e(s.citation)} {e(s.summary)}</p>",
        f'<p class="muted">{mode}: {report.runs} runs, {report.seconds:.0f} s; claims: '
        f"{e(tally)}. Data: "
        + ", ".join(
            f'<a href="{e(str(rel / p.name))}">{e(p.name)}</a>'
            for p in sorted(report.folder.glob("*.parquet"))
        )
        + f', <a href="{e(str(rel / "claims.md"))}">claims.md</a>.</p>',
        "<h3>Claims</h3>",
        "<table><tr><th>#</th><th>claim</th><th>source</th><th>rule</th><th>measured</th>"
        "<th>verdict</th><th>why</th></tr>",
    ]
    for r in report.claims:
        c = r.claim
        english = f"<br><span class='muted'>{e(c.english)}</span>" if c.english else ""
        css = r.measured.verdict.value.replace(" ", "-")
        lines.append(
            f"<tr><td>{e(c.id)}</td><td><span class='quote'>“{e(c.quote)}”</span>{english}"
            f"</td><td>{e(c.source)}</td><td>{e(c.rule)}</td><td>{e(r.measured.value)}</td>"
            f'<td class="{css}">{e(r.measured.verdict.value)}</td><td>{e(r.measured.why)}</td></tr>'
        )
    lines.append("</table>")
    for result in report.sensitivity:
        lines += [
            f"<h3>Sensitivity: {e(result.spec.parameter)}</h3>",
            "<table><tr><th>#</th><th>value</th><th>measured</th><th>verdict</th></tr>",
        ]
        for cid, label, m in result.rows:
            css = m.verdict.value.replace(" ", "-")
            lines.append(
                f"<tr><td>{e(cid)}</td><td>{e(label)}</td><td>{e(m.value)}</td>"
                f'<td class="{css}">{e(m.verdict.value)}</td></tr>'
            )
        lines.append("</table>")
    lines.append("<h3>Figures</h3>")
    for spec, png in report.figures:
        src = rel / png.name
        svg = src.with_suffix(".svg")
        lines.append(
            f'<figure><a href="{e(str(svg))}" title="click to enlarge (SVG)">'
            f'<img src="{e(str(src))}" alt="{e(spec.caption)}"></a>'
            f"<figcaption>{e(spec.caption)}</figcaption></figure>"
        )
    lines += [
        "<h3>Parameters</h3>",
        "<table><tr><th>parameter</th><th>value</th><th>why</th></tr>",
    ]
    profiles = ", ".join(report.tcp_profiles) or "-"
    why = "the profile under every TCP option the study does not set (docs/tcp.md, Profiles)"
    parameters = [*s.parameters, ("TCP profile", profiles, why)]
    lines += [
        f"<tr><td>{e(name)}</td><td>{e(value)}</td><td>{e(why)}</td></tr>"
        for name, value, why in parameters
    ]
    lines.append("</table>")
    if report.failures:
        lines.append("<h3>Failures</h3><ul>")
        lines += [
            f"<li>{e(str(f.point))} seed {f.seed}: {e(f.error)}</li>" for f in report.failures
        ]
        lines.append("</ul>")
    return lines


def goodput_text(results: cwnd.Results) -> str:
    """Each flow's goodput in Mb/s and each traffic generator's offered load against
    its target, in one line (a scenario may have either or both)."""
    s, g = results.summary, results.generators
    parts = [
        f"{name}: {bps / 1e6:.2f}"
        for name, bps in zip(s.get("name", []), s.get("goodput_bps", []), strict=True)
    ]
    parts += [
        f"{name}: load {offered:.2f} of {target:.2f}"
        for name, offered, target in zip(
            g.get("name", []), g.get("offered_load", []), g.get("target_load", []), strict=True
        )
    ]
    return ", ".join(parts)


def write_scenarios_index(runs: list[tuple[Path, cwnd.Results, list[str]]], out: Path) -> Path:
    """Writes `out/index.html` for example scenarios run into `out/<stem>/` (`cwnd
    run-all`), each given with the TCP profiles it ran: per scenario its description,
    each flow's goodput, its TCP profiles, the run's fingerprint and its figures, full
    width."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>cwnd: example scenarios</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>cwnd: example scenarios</h1>",
        f'<p class="muted">cwnd {e(cwnd.__version__)}. One run of each scenario; its '
        "tables (CSV, Parquet) are in its folder. Fingerprint: the hash of every event of "
        "the run, in hex.</p>",
        "<table><tr><th>scenario</th><th>flows: goodput (Mb/s)</th><th>TCP profile</th>"
        "<th>fingerprint</th></tr>",
    ]
    for folder, results, profiles in runs:
        goodputs = goodput_text(results)
        parts.append(
            f'<tr><td><a href="#{e(folder.name)}">{e(folder.name)}</a></td><td>{e(goodputs)}</td>'
            f"<td>{e(', '.join(profiles) or '-')}</td>"
            f"<td><code>{results.fingerprint:016x}</code></td></tr>"
        )
    parts.append("</table>")
    for folder, results, _ in runs:
        description = str(results.spec.get("description") or "")
        parts += [
            f'<h2 id="{e(folder.name)}">{e(folder.name)}</h2>',
            f'<p>{e(description)} <a href="{e(folder.name)}/">files</a></p>',
        ]
        for png in sorted(folder.glob("*.png")):
            src = f"{folder.name}/{png.name}"
            parts.append(
                f'<figure><a href="{e(src)}" title="click to enlarge"><img src="{e(src)}" '
                f'alt="{e(folder.name)}: {e(png.stem)}"></a></figure>'
            )
    parts.append("</body></html>")
    path = out / "index.html"
    atomic.write_text(path, "\n".join(parts) + "\n")
    return path
