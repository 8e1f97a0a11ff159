"""A deterministic generator of realistic Markdown for the benchmarks.

The documents belong to a fictional water utility, Fenwold Water, and come in several
kinds (runbooks, policies, meeting notes, incident reviews, how-tos, FAQs, project
updates): an H1 title, an intro, two to five H2 sections, some with H3 subsections, and
a mix of paragraphs, bullet lists, numbered steps, tables and fenced code whose lines
start with `#`. Names, numbers, dates and codes vary per sentence, so almost every
paragraph (and so every embedding window) is distinct. The same seed always gives the
same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path


def _words(text: str) -> list[str]:
    """A comma-separated word list written as a block of text."""
    return [w.strip() for w in text.replace("\n", " ").split(",") if w.strip()]


SITES = _words(
    """
    Ashby Lane treatment works, Harrow Moor reservoir, Copse End pumping station,
    Little Fenton booster, Wexcombe service reservoir, Millbrook intake,
    Stanholt sludge centre, Brackley Hill tower, Orrin Vale borehole field,
    Saltmarsh outfall, Cresswell depot, Thornby control room
    """
)
SYSTEMS = _words(
    """
    SCADA historian, telemetry outstation, billing platform, work order system, GIS viewer,
    lab information system, meter data hub, customer portal, alarm handler,
    chlorine dosing controller, asset register, field tablet app
    """
)
ASSETS = _words(
    """
    duty pump, standby pump, turbidity monitor, sand filter, UV reactor, inlet screen,
    pressure reducing valve, flow meter, backwash blower, dosing line, standby generator,
    level sensor, sluice gate, air valve
    """
)
TEAMS = _words(
    """
    network operations, treatment operations, asset planning, customer billing,
    water quality, field services, control room, health and safety, capital delivery,
    metering, leakage, data and analytics
    """
)
PEOPLE = _words(
    """
    Maren Oyelaran, Tobias Whitlock, Priya Castellanos, Dewi Faraday, Ingrid Mbeki,
    Callum Ashdown, Yusra Holloway, Benedikt Sorensen, Aoife Ramírez, Jonah Kettleby,
    Lucia Brandt, Hamid Trevelyan
    """
)
ROLES = _words(
    """
    duty manager, shift technician, process scientist, network controller, billing analyst,
    site supervisor, asset engineer, compliance officer
    """
)
ACTIONS = _words(
    """
    isolate, inspect, recalibrate, flush, replace, log, escalate, reset, sample, verify,
    photograph, tag out, restart, review
    """
)
REASONS = _words(
    """
    the turbidity reading drifted above 0.8 NTU, a pressure transient was recorded,
    the chlorine residual fell below target, the telemetry link dropped for an hour,
    a customer reported discoloured water, the backwash cycle overran,
    a contractor damaged a service pipe, the generator failed its weekly test,
    a billing batch was rejected, the reservoir level alarm latched,
    storm inflow exceeded the screen capacity, a meter read was estimated twice
    """
)
MONTHS = _words(
    """
    January, February, March, April, May, June, July, August, September, October, November,
    December
    """
)
DAYS = _words(
    """
    Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday
    """
)
TOOLS = _words(
    """
    torque wrench, portable chlorine kit, gas detector, ultrasonic flow probe,
    lock-out kit, sampling bottles, thermal camera, data logger
    """
)

SENTENCES = [
    "The {role} must {action} the {asset} at {site} whenever {reason}.",
    "If {reason}, the {team} team raises a ticket in the {system} within {n} minutes.",
    "{person} confirmed that the {asset} at {site} was back in service by {hh}:{mm}.",
    "Readings from the {asset} are copied to the {system} every {n} seconds.",
    "Before any work on the {asset}, {action} it and record the permit number {code}.",
    "Since {month} {year} the {team} team owns the weekly check of the {asset}.",
    "On {day}s the {role} reviews the {system} exceptions report before {hh}:00.",
    "A {tool} is kept in the van at {site} for exactly this job.",
    "Costs above £{money} need sign-off from {person}, the {team} lead.",
    "The target is {n} per cent availability for every {asset} across the region.",
    "When {reason}, customers in postcode area FW{n2} may see a short loss of pressure.",
    "Escalate to the {role} on call if the {asset} does not recover after {n2} attempts.",
    "The last audit at {site} ({code}) found {n2} actions, all closed by {month}.",
    "Do not {action} the {asset} while the {system} shows an active alarm.",
    "{person} will circulate a summary to the {team} team after the {day} meeting.",
    "Spare parts for the {asset} are ordered through the {system} using code {code}.",
    "Flow through the {asset} is limited to {n3} litres per second during maintenance.",
    "Each {role} completes refresher training on the {system} every {n2} months.",
    "Results outside the limit are phoned to the {role} and logged as {code}.",
    "The {team} team agreed to {action} the {asset} monthly rather than quarterly.",
]
HEADINGS = _words(
    """
    Purpose, Scope, Background, Responsibilities, Procedure, Safety, Escalation, Records,
    Contacts, Known issues, Checks, Reporting, Actions, Timeline, Root cause,
    Lessons learned, Next steps, Budget, Training, Tools and equipment, Decisions,
    Open questions, Handover
    """
)
SUBHEADINGS = _words(
    """
    Before you start, During the work, Afterwards, Out of hours, Exceptions,
    Weekday routine, Weekend cover, Sampling, Isolation, Reinstatement
    """
)
KINDS = {
    "runbooks": "Runbook: {action_title} the {asset} at {site}",
    "policies": "{team_title} policy {code}",
    "meetings": "{team_title} meeting, {day} {date} {month} {year}",
    "incidents": "Incident review {code}: {asset} at {site}",
    "howto": "How to {action} the {asset} using the {system}",
    "faq": "{system_title} FAQ for {team}",
    "projects": "Project update: {site} {asset} renewal",
}


def _fill(rng: random.Random, template: str) -> str:
    action = rng.choice(ACTIONS)
    team = rng.choice(TEAMS)
    system = rng.choice(SYSTEMS)
    return template.format(
        role=rng.choice(ROLES),
        action=action,
        action_title=action.capitalize(),
        asset=rng.choice(ASSETS),
        site=rng.choice(SITES),
        reason=rng.choice(REASONS),
        team=team,
        team_title=team.capitalize(),
        system=system,
        system_title=system.title(),
        person=rng.choice(PEOPLE),
        tool=rng.choice(TOOLS),
        month=rng.choice(MONTHS),
        day=rng.choice(DAYS),
        year=rng.randint(2019, 2025),
        date=rng.randint(1, 28),
        hh=f"{rng.randint(5, 22):02d}",
        mm=f"{rng.randint(0, 59):02d}",
        n=rng.randint(5, 95),
        n2=rng.randint(2, 12),
        n3=rng.randint(40, 900),
        money=f"{rng.randint(2, 90) * 250:,}",
        code=f"{rng.choice('AFKQRW')}-{rng.randint(100, 9999)}",
    )


def sentence(rng: random.Random) -> str:
    text = _fill(rng, rng.choice(SENTENCES))
    return text[0].upper() + text[1:]


def paragraph(rng: random.Random, low: int = 2, high: int = 5) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(low, high)))


def bullets(rng: random.Random) -> str:
    return "\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(3, 5)))


def steps(rng: random.Random) -> str:
    out = []
    for n in range(1, rng.randint(3, 6) + 1):
        out.append(f"{n}. {_fill(rng, '{action_title} the {asset} and note the reading.')}")
    return "\n".join(out)


def table(rng: random.Random) -> str:
    rows = ["| Asset | Site | Interval | Owner |", "|---|---|---|---|"]
    for _ in range(rng.randint(3, 5)):
        rows.append(
            f"| {rng.choice(ASSETS)} | {rng.choice(SITES)} | every {rng.randint(1, 12)} weeks"
            f" | {rng.choice(TEAMS)} |"
        )
    return "\n".join(rows)


def code_block(rng: random.Random) -> str:
    station = rng.choice(SITES).split()[0].lower()
    lines = [
        "```sh",
        f"# check the {rng.choice(ASSETS)} before a restart",
        f"fwctl status --site {station} --since {rng.randint(1, 48)}h",
        "# only if the status above is 'tripped':",
        f"fwctl reset {station}-{rng.randint(1, 9)} --confirm",
        "```",
    ]
    return "\n".join(lines)


def block(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.62:
        return paragraph(rng)
    if roll < 0.74:
        return bullets(rng)
    if roll < 0.84:
        return steps(rng)
    if roll < 0.93:
        return table(rng)
    return code_block(rng)


def document(rng: random.Random, kind: str, low: int = 2000, high: int = 4000) -> str:
    """One Markdown file of `low`..`high` bytes (UTF-8), with nested headings."""
    target = rng.randint(low + 150, high - 250)
    title = _fill(rng, KINDS[kind])
    parts = [f"# {title[0].upper() + title[1:]}", paragraph(rng, 1, 3)]
    size = sum(len(p.encode()) + 2 for p in parts)
    headings = rng.sample(HEADINGS, len(HEADINGS))
    while size < target and headings:
        section = [f"## {headings.pop()}"]
        if rng.random() < 0.3:
            section.append(block(rng))
            section.append(f"### {rng.choice(SUBHEADINGS)}")
        section.extend(block(rng) for _ in range(rng.randint(2, 4)))
        for piece in section:
            grown = size + len(piece.encode()) + 2
            if grown > high - 50:
                break
            parts.append(piece)
            size = grown
        else:
            continue
        break
    while parts[-1].startswith("#"):  # never end on a heading with nothing under it
        parts.pop()
    text = "\n\n".join(parts) + "\n"
    while len(text.encode()) < low:  # rare: top up with one more short paragraph
        text += "\n" + sentence(rng) + "\n"
    return text


def write_corpus(folder: Path, files: int, seed: int) -> list[Path]:
    """Write `files` documents under `folder` (in kind/year sub-folders); returns paths."""
    kinds = sorted(KINDS)
    paths = []
    for i in range(files):
        rng = random.Random(f"{seed}:{i}")
        kind = kinds[i % len(kinds)]
        sub = folder / kind / str(2019 + (i // len(kinds)) % 7)
        sub.mkdir(parents=True, exist_ok=True)
        path = sub / f"{kind}-{i:05d}.md"
        path.write_text(document(rng, kind), encoding="utf-8")
        paths.append(path)
    return paths


def long_document(seed: int, sections: int = 16) -> tuple[str, list[str]]:
    """A long handbook (40+ chunks at ≈2,000 characters each) and its paragraphs."""
    rng = random.Random(f"{seed}:long")
    parts = ["# Fenwold Water Field Handbook", paragraph(rng, 3, 4)]
    paragraphs = []
    headings = rng.sample(HEADINGS, len(HEADINGS))
    for n in range(sections):
        parts.append(f"## {headings[n % len(headings)]} ({n + 1})")
        for _ in range(10):
            para = paragraph(rng, 4, 6)
            paragraphs.append(para)
            parts.append(para)
    return "\n\n".join(parts) + "\n", paragraphs


def queries(seed: int, count: int) -> list[str]:
    """Search queries in the corpus's vocabulary, phrased as people ask them."""
    rng = random.Random(f"{seed}:queries")
    shapes = [
        "how do I {action} the {asset} at {site}",
        "what happens when {reason}",
        "who signs off costs for the {team} team",
        "{system} alarm on the {asset}",
        "permit needed before working on a {asset}",
        "weekend cover for {site}",
        "training on the {system} for a {role}",
        "{asset} maintenance interval",
        "escalation if the {asset} does not recover",
        "customers losing pressure after {reason}",
    ]
    return [_fill(rng, shapes[i % len(shapes)]) for i in range(count)]
