"""Writes the demo collection: the internal notes of the Larkspur Applied Research Institute.

The institute is fictional and so is every note. The collection exists so a new user can train a
model in seconds and see what semantic matching buys: most topics are worded the way outsiders and
newcomers speak ("photovoltaics"), while the institute's experts write in their lab's own words
("solar panels", "PV cells", "inverter"). The lay words occur only in newcomers' reading notes,
a few of them co-signed by an expert; the same newcomers also write lab notes in the lab's words,
mostly co-signed by an expert. So an exact-match ranker finds the newcomer and perhaps one expert
and then guesses, while a model that learns which words and people go together finds the area's
other experts too. A few topics use the experts' own words, where exact matching does well too.

Seeded and standard library only: running it again rewrites the committed files byte for byte.

    python resources/demo/make_demo.py [OUT_DIR]     (default: the folder holding this script)
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

SEED = 20160411
MIN_WORDS, MAX_WORDS = 15, 40
# A person is judged an expert on an area's topics when at least this many of their lab notes
# (co-authored ones included; reading and office notes do not count) are about the area.
EXPERT_NOTES = 20
# The share of a newcomer's notes that are reading notes, and the shares of their reading and lab
# notes that an expert of their area co-signs.
READING = 0.4
CO_SIGNED_READING, CO_SIGNED_LAB = 0.2, 0.7
# The share of lab notes written about reading and learning (in the lab's words), and of
# everyone's notes that are office notes about no area.
LEARNING, OFFICE = 0.15, 0.05


@dataclass(frozen=True)
class Measure:
    name: str
    unit: str
    low: float
    high: float


@dataclass(frozen=True)
class Area:
    """One research group: the words its experts use, and the words newcomers bring."""

    key: str
    title: str
    things: tuple[str, ...]
    measures: tuple[Measure, ...]
    problems: tuple[str, ...]
    actions: tuple[str, ...]
    methods: tuple[str, ...]
    places: tuple[str, ...]
    # Outsiders' and textbooks' words for the area: only in newcomers' reading notes.
    lay_terms: tuple[str, ...]
    semantic_topics: tuple[str, ...]
    exact_topic: str | None


AREAS = (
    Area(
        "solar", "Solar energy",
        ("solar panels", "PV cells", "inverter", "rooftop array", "string combiner box",
         "irradiance sensor", "MPPT controller", "mounting rails", "junction box", "bypass diodes"),
        (Measure("string voltage", "V", 380, 620), Measure("panel temperature", "°C", 18, 71),
         Measure("irradiance", "W/m²", 150, 1050), Measure("inverter efficiency", "%", 92, 98.5)),
        ("hot spots on two cells", "a tripped inverter", "soiling on the lower panels",
         "shading losses from the new mast", "cracked cell glass", "moisture in a junction box"),
        ("clean the panels", "replace the bypass diodes", "re-torque the mounting rails",
         "update the inverter firmware", "trim the trees that shade the array",
         "recalibrate the irradiance sensor"),
        ("I-V curve tracing", "thermal imaging", "electroluminescence imaging",
         "string monitoring"),
        ("the east roof", "test yard B", "the car park canopy"),
        ("photovoltaics", "insolation", "photovoltaic modules"),
        ("photovoltaics", "insolation"),
        "inverter efficiency",
    ),
    Area(
        "battery", "Battery storage",
        ("lithium cells", "battery pack", "cell balancing board", "thermal chamber", "cycler",
         "electrolyte samples", "cathode sheets", "battery management system"),
        (Measure("state of charge", "%", 5, 100), Measure("cell temperature", "°C", 20, 58),
         Measure("capacity", "Ah", 2.1, 3.4), Measure("internal resistance", "mΩ", 12, 48)),
        ("capacity fade after cycling", "swelling in one pouch cell", "a thermal runaway alarm",
         "drift in the cycler channels", "lithium plating at low temperature"),
        ("rerun the charge cycles", "replace the faulty cycler channel",
         "tighten the pack busbars", "log the cell voltages hourly",
         "discharge the damaged cells safely"),
        ("charge cycling", "impedance spectroscopy", "calendar ageing tests",
         "post-mortem teardowns"),
        ("the battery lab", "the fire-safe bunker", "bay 3"),
        ("electrochemistry", "accumulators", "galvanic elements"),
        ("electrochemistry accumulators", "galvanic elements"),
        None,
    ),
    Area(
        "wind", "Wind power",
        ("turbine blades", "rotor hub", "nacelle", "gearbox", "yaw drive", "pitch actuators",
         "met mast", "tower flange"),
        (Measure("wind speed", "m/s", 3, 24), Measure("rotor speed", "rpm", 6, 18),
         Measure("gearbox oil temperature", "°C", 35, 88), Measure("power output", "kW", 120, 2400)),
        ("leading edge erosion", "a noisy gearbox bearing", "yaw misalignment",
         "ice on the blades", "loose tower flange bolts", "pitch actuator faults"),
        ("inspect the blades by drone", "change the gearbox oil", "realign the yaw drive",
         "retighten the flange bolts", "reset the pitch controller"),
        ("vibration analysis", "drone inspections", "SCADA data reviews", "power curve testing"),
        ("the coastal wind farm", "turbine T4", "the hill site"),
        ("aeroelasticity", "anemometry", "windmills"),
        ("aeroelasticity", "anemometry windmills"),
        "gearbox vibration analysis",
    ),
    Area(
        "water", "Water treatment",
        ("reverse osmosis membranes", "sand filters", "chlorine dosing pump", "sludge tank",
         "intake screens", "turbidity meter", "UV reactor", "backwash valves"),
        (Measure("turbidity", "NTU", 0.1, 4.5), Measure("free chlorine", "mg/L", 0.2, 1.8),
         Measure("flow rate", "m³/h", 40, 310), Measure("membrane pressure", "bar", 8, 62)),
        ("fouling on the membranes", "a blocked intake screen", "chlorine overdosing",
         "algae in the settling basin", "a leaking backwash valve"),
        ("flush the sand filters", "clean the membranes chemically", "adjust the chlorine dosing",
         "empty the sludge tank", "replace the UV lamps"),
        ("jar testing", "membrane autopsies", "daily sampling", "pilot plant trials"),
        ("the pilot plant", "the river intake", "the settling basin"),
        ("desalination", "purification", "potability"),
        ("desalination", "purification potability"),
        None,
    ),
    Area(
        "bridges", "Structural engineering",
        ("steel girders", "concrete deck", "expansion joints", "bridge bearings", "strain gauges",
         "rebar", "cable stays", "load cells"),
        (Measure("strain", "microstrain", 40, 950), Measure("deflection", "mm", 0.5, 38),
         Measure("crack width", "mm", 0.05, 1.2), Measure("concrete strength", "MPa", 28, 65)),
        ("fatigue cracks near a weld", "corrosion on the rebar", "a seized expansion joint",
         "spalling concrete", "bearing displacement"),
        ("replace the strain gauges", "seal the deck cracks", "grease the bearings",
         "core-drill the deck for samples", "repaint the girders"),
        ("load testing", "ultrasonic inspection", "finite element analysis",
         "visual inspection"),
        ("the river bridge", "span 2", "the footbridge"),
        ("viaducts", "overpasses", "geotechnics"),
        ("viaducts overpasses", "geotechnics"),
        "fatigue cracks steel girders",
    ),
    Area(
        "ml", "Machine learning",
        ("neural networks", "training runs", "GPU cluster", "validation set", "classifier",
         "feature pipeline", "labelled data", "loss curves"),
        (Measure("validation accuracy", "%", 61, 97), Measure("training time", "hours", 1, 60),
         Measure("F1 score", "points", 0.55, 0.94), Measure("GPU memory", "GB", 6, 78)),
        ("overfitting after ten epochs", "label noise in the new batch", "exploding gradients",
         "a memory leak in the data loader", "class imbalance"),
        ("add dropout", "tune the learning rate", "relabel the noisy samples",
         "shuffle the training data", "rerun the baseline"),
        ("cross validation", "hyperparameter searches", "ablation studies", "error analysis"),
        ("the compute room", "the shared cluster"),
        ("artificial intelligence", "predictive analytics"),
        ("artificial intelligence", "predictive analytics"),
        None,
    ),
    Area(
        "security", "Network security",
        ("firewall", "intrusion detection system", "access logs", "VPN gateway", "patch server",
         "password vault", "mail filter", "user accounts"),
        (Measure("blocked connections", "per hour", 20, 900),
         Measure("unpatched hosts", "hosts", 1, 45), Measure("phishing click rate", "%", 1, 19),
         Measure("login failures", "per day", 3, 400)),
        ("a phishing wave", "an expired certificate", "malware on a laptop",
         "brute force login attempts", "an open port on the print server"),
        ("rotate the passwords", "patch the servers", "revoke the old certificates",
         "block the suspicious addresses", "review the firewall rules"),
        ("vulnerability scanning", "penetration testing", "log reviews", "phishing drills"),
        ("the server room", "the guest network", "the VPN"),
        ("cybersecurity", "infosec", "cyberattacks"),
        ("cybersecurity", "infosec cyberattacks"),
        "phishing",
    ),
    Area(
        "robotics", "Robotics",
        ("robot arm", "gripper", "servo motors", "lidar", "path planner", "joint encoders",
         "mobile base", "force sensor"),
        (Measure("positioning error", "mm", 0.1, 6), Measure("joint torque", "Nm", 2, 80),
         Measure("cycle time", "s", 3, 45), Measure("battery runtime", "min", 30, 240)),
        ("the gripper slipping on wet parts", "encoder drift on joint three",
         "lidar dropouts in sunlight", "collisions in the narrow aisle", "servo overheating"),
        ("retune the joint controllers", "replace the gripper pads", "recalibrate the lidar",
         "update the path planner map", "tighten the encoder couplings"),
        ("pick and place trials", "kinematic calibration", "path planning simulation",
         "teleoperation tests"),
        ("the robot cell", "the warehouse mock-up", "the assembly line"),
        ("mechatronics", "cobots", "manipulators"),
        ("mechatronics", "cobots manipulators"),
        "lidar path planning",
    ),
    Area(
        "genomics", "Genomics",
        ("DNA samples", "sequencer", "PCR primers", "flow cells", "read alignments",
         "variant calls", "reference genome", "gene expression tables"),
        (Measure("read depth", "x", 12, 140), Measure("DNA yield", "ng/µL", 4, 95),
         Measure("mapping rate", "%", 71, 99.5), Measure("run time", "hours", 8, 52)),
        ("contamination in two samples", "low read quality at the ends", "primer dimers",
         "a failed flow cell", "batch effects between runs"),
        ("re-extract the DNA", "redesign the primers", "trim the adapters",
         "rerun the alignment", "add negative controls"),
        ("whole genome sequencing", "PCR amplification", "variant calling", "RNA sequencing"),
        ("the wet lab", "the sequencing core"),
        ("bioinformatics", "heredity", "epigenetics"),
        ("bioinformatics", "heredity epigenetics"),
        "variant calling",
    ),
    Area(
        "air", "Air quality",
        ("monitoring stations", "particulate sensors", "ozone analyser", "diffusion tubes",
         "weather mast", "calibration gas", "filter samples", "emission inventory"),
        (Measure("fine particulate", "µg/m³", 4, 78), Measure("ozone", "ppb", 10, 90),
         Measure("nitrogen dioxide", "µg/m³", 8, 65), Measure("sulphur dioxide", "µg/m³", 1, 20)),
        ("a drifting ozone analyser", "spider webs in the sensor inlet",
         "a power cut at the roadside station", "high readings on the bonfire weekend",
         "humidity errors in the particulate sensors"),
        ("swap the filter samples", "recalibrate the ozone analyser", "clean the sensor inlets",
         "check the zero gas", "move the station away from the bus stop"),
        ("co-location tests", "dispersion modelling", "source apportionment",
         "weekly filter weighing"),
        ("the roadside station", "the school site", "the harbour"),
        ("smog", "haze", "aerosols"),
        ("smog", "haze aerosols"),
        None,
    ),
    Area(
        "composites", "Polymer composites",
        ("carbon fibre layup", "epoxy resin", "autoclave", "tensile specimens", "mould release",
         "prepreg rolls", "test coupons", "curing oven"),
        (Measure("tensile strength", "MPa", 300, 1900), Measure("cure temperature", "°C", 80, 180),
         Measure("void content", "%", 0.2, 6), Measure("fibre volume fraction", "%", 45, 65)),
        ("voids in the laminate", "delamination at the edges", "resin that cured too fast",
         "wrinkles in the prepreg", "a leaking vacuum bag"),
        ("degas the resin", "extend the cure cycle", "re-cut the test coupons",
         "replace the vacuum bag", "store the prepreg in the freezer"),
        ("tensile testing", "ultrasonic C-scan", "microscopy of cross sections",
         "cure cycle trials"),
        ("the composites workshop", "the clean room"),
        ("plastics", "macromolecules", "thermosets"),
        ("plastics", "macromolecules thermosets"),
        None,
    ),
    Area(
        "acoustics", "Acoustics and noise",
        ("microphones", "sound level meter", "loudspeaker array", "anechoic chamber",
         "vibration isolators", "acoustic panels", "impulse responses", "noise barrier"),
        (Measure("sound level", "dB(A)", 32, 96), Measure("reverberation time", "s", 0.3, 2.8),
         Measure("transmission loss", "dB", 18, 62), Measure("background noise", "dB", 20, 45)),
        ("a humming ventilation duct", "flanking transmission through the floor",
         "traffic noise above the limit", "a faulty microphone capsule",
         "echoes in the lecture hall"),
        ("add absorbing panels", "reseal the door gaps", "recalibrate the microphones",
         "raise the noise barrier", "mount the fans on vibration isolators"),
        ("impulse response measurement", "noise mapping", "sound insulation tests",
         "listening tests"),
        ("the anechoic chamber", "the lecture hall", "the motorway site"),
        ("soundproofing", "psychoacoustics", "decibels"),
        ("soundproofing", "psychoacoustics"),
        None,
    ),
)

# Invented names; the person id is the name in lower case with hyphens.
NAMES = (
    "Amara Okafor", "Bjorn Lindqvist", "Chiara Benedetti", "Dmitri Volkov", "Elif Demir",
    "Farah Haddad", "Gareth Pryce", "Hana Novakova", "Ines Carvalho", "Jonas Weber",
    "Kaito Mori", "Leila Rahimi", "Mateo Alvarez", "Nadia Petrova", "Oskar Nieminen",
    "Priya Raman", "Quentin Moreau", "Rosa Jimenez", "Samuel Mensah", "Tara Fitzgerald",
    "Uma Krishnan", "Viktor Horvat", "Wen Zhao", "Xavier Dubois", "Yara Saleh",
    "Zofia Kowalska", "Aidan Brennan", "Beatriz Lopes", "Cem Yilmaz", "Dalia Mansour",
    "Emil Sorensen", "Freya Olsen", "Goran Petrovic", "Helena Varga", "Ivan Kuznetsov",
    "Julia Hoffmann", "Kwame Asante", "Lucia Romano", "Marek Dvorak", "Noor Siddiqui",
)

# Lab notes, as the institute's staff write them, in the lab's own words.
LAB_TEMPLATES = (
    "{day} check on the {thing} at {place}: {measure} read {value}, within the expected range.",
    "Found {problem} during {method}. Plan is to {action} before {day}.",
    "Status: finished {method} on the {thing}. The {measure} averaged {value}; {colleague} "
    "will {action} next.",
    "Minutes of the {title} meeting: we agreed to {action}. Open issue: {problem}. Next review "
    "on {day}.",
    "Incident note: {problem} at {place} on {day}. Nobody was hurt. We will {action} and repeat "
    "the {method}.",
    "Draft result: over {weeks} weeks of {method} the {measure} fell from {high} to {low}, "
    "probably because of {problem}.",
    "Reminder to the team: {action} after every round of {method}, and log the {measure} "
    "together with the serial number of the {thing}.",
    "Compared the {thing} with the {thing2} in {method}. With the {thing2} the {measure} "
    "stayed steadier, by about {percent} percent.",
    "{colleague} and I spent the morning at {place} trying to {action}. Partly done; {problem} "
    "slowed us down.",
    "Weekly summary: {count} rounds of {method}, one problem ({problem}), {measure} stable at "
    "{value}.",
    "Question for {colleague}: should we {action} now, or wait until we finish {method} on the "
    "{thing}?",
    "Calibration log: checked the {thing} at {place} again and corrected the {measure} offset "
    "by {value}.",
    "Purchase request: spare parts for the {thing}, needed for {method}. Quote received, about "
    "{money} euros, delivery in {weeks} weeks.",
    "Seminar abstract: what {count} months of {method} taught us about {problem}, and why we "
    "now {action} first.",
    "Handover for {day}: {problem} still open near the {thing}. Please {action} if it gets "
    "worse, and call {colleague} if in doubt.",
    "Why did the {measure} jump to {value} on {day}? Most likely {problem}; {method} should "
    "confirm it.",
    "Short note on the {thing}: after we {action}, {method} gave {measure} readings around "
    "{value}, the best this year.",
    "Safety walk at {place}: {problem} noted next to the {thing}. Agreed with {colleague} to "
    "{action} this week.",
)

# Notes about reading and learning. Everyone writes them about the lab's methods and kit; a
# newcomer's reading notes are about the area in lay words, and hold none of the lab's words.
READING_TEMPLATES = (
    "Reading notes on {subject} and {subject2}, week {count}: a short summary is in the group folder. "
    "Comments welcome, {colleague}.",
    "Question for {colleague}: for the {subject} part of my plan, which review should I start with? "
    "Happy to discuss at the next team meeting.",
    "Draft summary on {subject} sent to {colleague} for review before {day}. The {subject2} section "
    "still needs work.",
    "Seminar next {day}: a short introduction to {subject} for the team, with {colleague} answering "
    "the hard questions.",
    "Plan for the next {weeks} weeks: read up on {subject} and {subject2}, then write a short review for "
    "the group.",
    "Minutes of my meeting with {colleague}: agreed that a review of {subject} comes first; {subject2} "
    "can wait until next month.",
    "Notes from the {subject} webinar on {day}: a good overview, with a short part on {subject2}. Slides "
    "in the group folder.",
    "Library request for the team: two recent books on {subject}, and a review article on {subject2}.",
)

# Office notes: anyone's, about no area at all.
OFFICE_TEMPLATES = (
    "Out of office from {day} for {count} days; {colleague} will answer anything urgent. Back in "
    "time for the all-hands meeting.",
    "Travel claim for the conference trip submitted, about {money} euros in total. Receipts are "
    "in the finance folder.",
    "Fire drill on {day} at ten. Please leave the building by the nearest exit and meet at the "
    "main gate.",
    "Reminder: timesheets are due on {day}. The finance office cannot pay overtime without them.",
    "Moved desks this week; I now sit next to {colleague} on the second floor. Same phone number "
    "as before.",
    "Annual safety training on {day} morning is compulsory for everyone who works in a "
    "laboratory. Sign up with the office.",
    "Welcome drinks for the new students on {day} afternoon in the canteen. Everyone is invited, "
    "bring your team.",
    "The printer on the second floor is jammed again. Facilities know; use the one by the "
    "library until {day}.",
)

FOLLOW_UPS = (
    "Photos are on the shared drive.",
    "Raw data in the group folder.",
    "Comments welcome.",
    "Will update next week.",
    "{colleague} has the full log.",
    "More on {day}.",
    "Ask me if anything is unclear.",
    "Spreadsheet attached to the ticket.",
)

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


@dataclass
class Person:
    name: str
    role: str  # "expert" or "newcomer"
    documents: int
    areas: dict[str, float]  # area key -> share of the person's notes

    @property
    def person_id(self) -> str:
        return self.name.lower().replace(" ", "-")

    @property
    def main_area(self) -> str:
        return max(self.areas, key=self.areas.get)

    @property
    def first_name(self) -> str:
        return self.name.split()[0]


def make_people(rng: random.Random) -> list[Person]:
    """Two experts and one newcomer per area, plus four people split between two areas.

    Every expert also writes a little about one or two other areas, often enough to count as an
    expert on one of them too.
    """
    names = list(NAMES)
    rng.shuffle(names)
    keys = [a.key for a in AREAS]
    people = []
    for key in keys:
        for _ in range(2):
            others = rng.sample([k for k in keys if k != key], 2)
            second = rng.choice((0.3, 0.3, 0.08))
            areas = {key: 0.9 - second, others[0]: second, others[1]: 0.1}
            people.append(Person(names.pop(), "expert", rng.randint(70, 120), areas))
        people.append(Person(names.pop(), "newcomer", rng.randint(24, 32), {key: 1.0}))
    for _ in range(4):
        pair = rng.sample(keys, 2)
        people.append(Person(names.pop(), "expert", rng.randint(80, 110),
                             {pair[0]: 0.55, pair[1]: 0.45}))
    return people


class NoteWriter:
    """Fills the templates with one area's words, so every note reads like a real short note."""

    def __init__(self, rng: random.Random, people: list[Person]):
        self.rng = rng
        self.people = people

    def colleague(self, area: str, author: Person) -> str:
        pool = [p for p in self.people if area in p.areas and p is not author]
        return self.rng.choice(pool).first_name

    def value(self, m: Measure) -> str:
        x = self.rng.uniform(m.low, m.high)
        digits = 0 if m.high >= 100 else 1 if m.high >= 5 else 2
        return f"{x:.{digits}f} {m.unit}"

    def note(self, area: Area, author: Person, kind: str) -> str:
        """A note of one kind: "lab" (now and then about learning), "reading" or "office"."""
        rng = self.rng
        reading = kind == "reading"
        if kind == "office":
            templates = OFFICE_TEMPLATES
        else:
            templates = READING_TEMPLATES if reading or rng.random() < LEARNING else LAB_TEMPLATES
        while True:
            thing, thing2 = rng.sample(area.things, 2)
            method = rng.choice(area.methods)
            subject, subject2 = rng.sample(area.lay_terms, 2) if reading else (method, thing)
            measure = rng.choice(area.measures)
            low, high = sorted((self.value(measure), self.value(measure)), key=_number)
            slots = {
                "thing": thing, "thing2": thing2, "measure": measure.name,
                "value": self.value(measure), "high": high, "low": low,
                "problem": rng.choice(area.problems), "action": rng.choice(area.actions),
                "method": method, "place": rng.choice(area.places),
                "subject": subject, "subject2": subject2, "title": area.title,
                "colleague": self.colleague(area.key, author), "day": rng.choice(DAYS),
                "weeks": rng.randint(2, 9), "count": rng.randint(3, 12),
                "percent": rng.randint(3, 30), "money": rng.randrange(400, 9000, 50),
            }
            text = rng.choice(templates).format(**slots)
            if rng.random() < 0.4:
                text += " " + rng.choice(FOLLOW_UPS).format(**slots)
            if MIN_WORDS <= len(text.split()) <= MAX_WORDS:
                return text[0].upper() + text[1:]


def _number(value: str) -> float:
    return float(value.split()[0])


def make_documents(rng: random.Random, people: list[Person]):
    """(text, area key, author ids, kind) for every note, in a shuffled order."""
    writer = NoteWriter(rng, people)
    by_area = {a.key: a for a in AREAS}
    notes = []
    for person in people:
        keys = sorted(person.areas)
        weights = [person.areas[k] for k in keys]
        for _ in range(person.documents):
            key = rng.choices(keys, weights)[0]
            # An expert of the area co-signs most of a newcomer's lab notes and a few of their
            # reading notes; anyone's lab note now and then has co-authors from the area.
            newcomer = person.role == "newcomer"
            if rng.random() < OFFICE:
                kind = "office"
            else:
                kind = "reading" if newcomer and rng.random() < READING else "lab"
            authors = [person]
            if newcomer and kind != "office" and rng.random() < (
                    CO_SIGNED_READING if kind == "reading" else CO_SIGNED_LAB):
                authors.append(rng.choice([p for p in people if p.role == "expert"
                                           and p.main_area == key]))
            elif kind == "lab" and rng.random() < 0.15:
                pool = [p for p in people
                        if p.role == "expert" and key in p.areas and p is not person]
                authors += rng.sample(pool, min(len(pool), rng.choice((1, 1, 2))))
            notes.append((writer.note(by_area[key], person, kind), key,
                          [p.person_id for p in authors], kind))
    rng.shuffle(notes)
    return notes


def relevance(notes, people: list[Person]) -> dict[str, list[str]]:
    """Area key -> its experts: staff (not newcomers) with at least EXPERT_NOTES lab notes on it."""
    counts: dict[tuple[str, str], int] = {}
    for _, key, authors, kind in notes:
        for pid in authors:
            counts[key, pid] = counts.get((key, pid), 0) + (kind == "lab")
    return {
        a.key: sorted(p.person_id for p in people if p.role == "expert"
                      and counts.get((a.key, p.person_id), 0) >= EXPERT_NOTES)
        for a in AREAS
    }


def write_tsv(path: Path, header: tuple[str, ...], rows) -> None:
    lines = ["\t".join(header)] + ["\t".join(str(x) for x in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def build(out: Path) -> None:
    rng = random.Random(SEED)
    people = make_people(rng)
    notes = make_documents(rng, people)
    out.mkdir(parents=True, exist_ok=True)

    doc_ids = [f"n{i:04d}" for i in range(1, len(notes) + 1)]
    write_tsv(out / "documents.tsv", ("doc_id", "text"),
              ((d, note[0]) for d, note in zip(doc_ids, notes, strict=True)))
    write_tsv(out / "associations.tsv", ("doc_id", "person_id"),
              ((d, pid) for d, note in zip(doc_ids, notes, strict=True) for pid in note[2]))

    written: dict[str, int] = {}
    for note in notes:
        for pid in note[2]:
            written[pid] = written.get(pid, 0) + 1
    write_tsv(out / "people.tsv", ("person_id", "name", "documents"),
              sorted(((p.person_id, p.name, written[p.person_id]) for p in people),
                     key=lambda r: (-r[2], r[0])))

    topics, qrels = [], []
    experts = relevance(notes, people)
    for area in AREAS:
        queries = [(q, "semantic") for q in area.semantic_topics]
        if area.exact_topic:
            queries.append((area.exact_topic, "exact"))
        for query, kind in queries:
            tid = f"T{len(topics) + 1:02d}"
            topics.append((tid, query, kind, area.title))
            qrels += [f"{tid} 0 {pid} 1" for pid in experts[area.key]]
    write_tsv(out / "topics.tsv", ("topic_id", "query", "kind", "area"), topics)
    (out / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8", newline="\n")


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
