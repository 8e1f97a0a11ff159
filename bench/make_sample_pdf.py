"""Regenerate sample_corpus/safety-summary-2023.pdf, the two-page PDF in the sample corpus.

Run with the project venv: `.venv/bin/python bench/make_sample_pdf.py`. The output is
deterministic (reportlab's invariant mode) and has a real text layer on both pages;
page 1 and page 2 carry different facts so that page-level retrieval can be tested.
"""

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer

OUT = Path(__file__).resolve().parent.parent / "sample_corpus" / "safety-summary-2023.pdf"

PAGE_1 = [
    ("Title", "Kestrel Sound Ferries: Annual Safety Summary 2023"),
    ("Heading2", "Traffic and reliability"),
    (
        "BodyText",
        "In 2023 the fleet carried 412,880 passengers and 61,305 vehicles. Of the 9,614 "
        "sailings in the timetable, 9,352 were operated, a reliability of 97.3 per cent.",
    ),
    (
        "BodyText",
        "The 262 sailings that did not run were lost for these reasons: 181 because of "
        "weather, 62 because of technical faults and 19 for other reasons, mostly harbour "
        "closures. January was the worst month, with 58 sailings lost to storms.",
    ),
    ("Heading2", "Incidents"),
    (
        "BodyText",
        "Crews logged 37 incidents during the year: 29 minor, 6 moderate and 2 serious. "
        "There were no critical incidents. One serious incident was a galley fire in August; "
        "the other was a main engine failure on route R3 in November, after which the vessel "
        "was towed back to Marrowby by the harbour tug without injury to anyone on board.",
    ),
    (
        "BodyText",
        "Four passengers received first aid on board and one passenger was taken to hospital "
        "after a fall on the car deck stairs.",
    ),
]

PAGE_2 = [
    ("Heading2", "Drills and training"),
    (
        "BodyText",
        "The four vessels held 142 drills between them. The average time to recover the "
        "man-overboard dummy was 6 minutes 40 seconds, inside the company target of 8 minutes. "
        "Nine crew members gained the first aid at sea certificate.",
    ),
    ("Heading2", "External audit"),
    (
        "BodyText",
        "The Marine Safety Agency audited the company in October 2023 and raised two minor "
        "non-conformities. NC-23-04: lifejacket light batteries past their expiry date on "
        "MV Skerrow Lass. NC-23-07: rest-hours records on Launch Tern were incomplete for "
        "three weeks in September. Both were closed by 15 December 2023.",
    ),
    ("Heading2", "Targets for 2024"),
    (
        "BodyText",
        "Replace the defibrillators on all four vessels with a newer model by 30 June 2024. "
        "Train a further 12 crew members in first aid at sea. Cut slips and falls on car "
        "deck stairs by a quarter by applying anti-slip coating to every stair tread during "
        "the winter refits.",
    ),
]


def main() -> None:
    styles = getSampleStyleSheet()
    story = []
    for i, page in enumerate((PAGE_1, PAGE_2)):
        if i:
            story.append(PageBreak())
        for style, text in page:
            story += [Paragraph(text, styles[style]), Spacer(1, 6)]
    doc = SimpleDocTemplate(
        str(OUT), pagesize=A4, title="Annual Safety Summary 2023", invariant=True
    )
    doc.build(story)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
