"""Text as words: surface normalisation, the tokeniser, and a text's clauses (issue 19, rules 1 and 4).

Normalised, never silently: the analysis keeps each word's surface spelling for the reasons it prints.
- Penn Treebank escapes (-LRB- -RRB- -LSB- -RSB- `` '') read as the brackets and quotes they stand for, and
  typographic apostrophes as "'": sources written by people and by NLP pipelines alike must read the same.
- Accents are folded (Noël = Noel); letters are Unicode letters, so a non-ASCII name stays one word.
- The possessive 's is a clitic, not a word ("Bogart's" = "Bogart 's" = Bogart).
- Dotted abbreviations (U.S., F.C., M.D.) and apostrophe names (O'Neal, L'Oreal) stay whole; the country
  abbreviations of `ABBREVIATIONS` read as the country's name (U.S. = United States).

Clauses (rule 1): a claim's predicate and arguments must be stated inside one clause of a cited fact. A text is cut
at ";", ": ", "but", "though", "although", "while", "whereas", at a comma before a new predicate (a verb form or a
relative word) and at "and"/"or" before a verb form. Enumerations ("A, B and C") are not cut, because no verb
follows their commas. Parentheticals are set aside: removed from the clause they interrupt and read as clauses of
their own (a birth date in brackets is a statement about the subject, not part of the sentence around it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a word list written as text."""
    return frozenset(text.split())


_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}
_PTB_RE = re.compile("|".join(re.escape(k) for k in _PTB))
_POSSESSIVE = re.compile(r"(?<=\w)\s?'s\b|(?<=s)'(?=\s)")
ABBREVIATIONS = {"u.s.": "United States", "u.s.a.": "United States", "usa": "United States",
                 "u.k.": "United Kingdom", "uk": "United Kingdom", "u.n.": "United Nations"}
# A dotted abbreviation (two or more letter-dot pairs), or a word with inner apostrophes (O'Neal, don't, n't), or a
# formula or code whose digits are glued to its letters (NO2, PbI3, H2O: one name, and "NO2" is no negation).
WORD = re.compile(r"\b(?:(?:[^\W\d_]\.){2,}|[^\W\d_]+(?:'[^\W\d_]+)*(?:\d+[^\W\d_]*)*)")
_OPEN, _CLOSE = "([{", ")]}"
_BRACKETS = re.compile(r"[()\[\]{}]")
_COMMA = re.compile(r",(?!\d)")
_CUT_WORDS = frozenset({"but", "though", "although", "while", "whereas"})
_RELATIVE = frozenset({"who", "which", "whose", "whom", "where"})
# Verb forms recognised without a tagger: auxiliaries and modals, irregular past forms and participles.
AUXILIARIES = word_set("""is are was were be been being am has have had do does did can could will would shall
should may might must""")
# a word before a verb form makes it an adjective (`predicate_verb`)
DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those", "its", "their", "his", "her", "our",
                         "each", "every", "no", "any", "some"})
IRREGULAR_VERBS = {
    "began": "begin", "begun": "begin", "became": "become", "born": "born", "borne": "bear",
    "broke": "break", "broken": "break", "brought": "bring", "built": "build", "bought": "buy", "came": "come",
    "caught": "catch", "chose": "choose", "chosen": "choose", "drew": "draw", "drawn": "draw", "drove": "drive",
    "driven": "drive", "ate": "eat", "eaten": "eat", "fought": "fight", "found": "find", "flew": "fly",
    "flown": "fly", "forgot": "forget", "forgotten": "forget", "froze": "freeze", "frozen": "freeze", "got": "get",
    "gotten": "get", "went": "go", "gone": "go", "held": "hold", "hid": "hide", "hidden": "hide", "knew": "know",
    "known": "know", "laid": "lay", "left": "left", "lent": "lend", "lost": "lose", "made": "make",
    "meant": "mean", "paid": "pay", "rode": "ride", "ridden": "ride", "rang": "ring", "rung": "ring",
    "said": "say", "seen": "see", "sold": "sell", "sent": "send", "shot": "shoot", "sang": "sing",
    "sung": "sing", "sat": "sit", "slept": "sleep", "spoke": "speak", "spoken": "speak", "spent": "spend",
    "stood": "stand", "stole": "steal", "stolen": "steal", "struck": "strike", "swore": "swear", "sworn": "swear",
    "taught": "teach", "told": "tell", "thought": "think", "threw": "throw", "thrown": "throw", "understood":
    "understand", "woke": "wake", "wore": "wear", "worn": "wear", "won": "win", "wrote": "write",
    "written": "write", "felt": "feel", "heard": "hear", "sought": "seek", "shown": "show", "spun": "spin",
    "stuck": "stick", "swam": "swim", "swum": "swim", "tore": "tear", "torn": "tear", "withdrew": "withdraw",
    "withdrawn": "withdraw", "overtook": "overtake", "undertook": "undertake", "gave": "give", "given": "give",
    "took": "take", "taken": "take", "grew": "grow", "grown": "grow", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "led": "lead", "kept": "keep", "ran": "run", "met": "meet",
    "underwent": "undergo", "undergone": "undergo", "arose": "arise", "arisen": "arise", "shrank": "shrink",
    "shrunk": "shrink", "sank": "sink", "sunk": "sink", "fed": "feed", "bred": "breed", "saw": "see",
}


DEMONYMS: dict[str, tuple[str, ...]] = {
    "american": ("united", "states"), "british": ("united", "kingdom"), "english": ("england",),
    "scottish": ("scotland",), "welsh": ("wales",), "irish": ("ireland",), "french": ("france",),
    "german": ("germany",), "italian": ("italy",), "spanish": ("spain",), "portuguese": ("portugal",),
    "dutch": ("netherlands",), "belgian": ("belgium",), "swiss": ("switzerland",), "austrian": ("austria",),
    "swedish": ("sweden",), "norwegian": ("norway",), "danish": ("denmark",), "finnish": ("finland",),
    "icelandic": ("iceland",), "polish": ("poland",), "czech": ("czech",), "hungarian": ("hungary",),
    "greek": ("greece",), "turkish": ("turkey",), "russian": ("russia",), "ukrainian": ("ukraine",),
    "canadian": ("canada",), "mexican": ("mexico",), "brazilian": ("brazil",), "argentine": ("argentina",),
    "argentinian": ("argentina",), "chilean": ("chile",), "colombian": ("colombia",), "peruvian": ("peru",),
    "venezuelan": ("venezuela",), "cuban": ("cuba",), "jamaican": ("jamaica",), "australian": ("australia",),
    "chinese": ("china",), "japanese": ("japan",), "korean": ("korea",), "indian": ("india",),
    "pakistani": ("pakistan",), "bangladeshi": ("bangladesh",), "iranian": ("iran",), "iraqi": ("iraq",),
    "israeli": ("israel",), "egyptian": ("egypt",), "nigerian": ("nigeria",), "kenyan": ("kenya",),
    "ethiopian": ("ethiopia",), "somali": ("somalia",), "libyan": ("libya",), "moroccan": ("morocco",),
    "filipino": ("philippines",), "indonesian": ("indonesia",), "thai": ("thailand",),
    "vietnamese": ("vietnam",), "malaysian": ("malaysia",), "singaporean": ("singapore",),
    "lithuanian": ("lithuania",), "latvian": ("latvia",), "estonian": ("estonia",), "romanian": ("romania",),
    "bulgarian": ("bulgaria",), "serbian": ("serbia",), "croatian": ("croatia",), "european": ("europe",),
    "african": ("africa",), "asian": ("asia",),
}


def place_mark(demonym: str) -> str:
    """The token an attributive demonym adds ("a Chinese university" -> "place:chinese"): it states the country."""
    return f"place:{demonym}"


class Word(NamedTuple):
    """One word: as written (accents folded) and lower-cased, where it stands, and whether it is capitalised."""

    surface: str
    lower: str
    start: int
    initial: bool  # the first word of its text: its capital says nothing about a name
    capitalised: bool  # starts with an upper-case letter (a name, unless it opens the sentence)


def plain(text: str) -> str:
    """PTB escapes read, apostrophes and dashes unified, accents folded, possessive clitics removed."""
    # each escape holds "-", "``" or "''", each possessive "'": the scans (every position tried) only when one can match
    if "-" in text or "``" in text or "''" in text:
        text = _PTB_RE.sub(lambda m: _PTB[m.group(0)], text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace(" -- ", " \u2013 ")
    folded = text if text.isascii() else "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _POSSESSIVE.sub("", folded) if "'" in folded else folded


@lru_cache(maxsize=256)  # one sentence's texts are read by several checks; a bound keeps it to about one sentence
def words(text: str) -> tuple[Word, ...]:
    """The words of a plain text, abbreviations expanded."""
    out: list[Word] = []
    for match in WORD.finditer(text):
        surface = match.group(0)
        expansion = ABBREVIATIONS.get(surface.lower()) if surface.isupper() or "." in surface else None
        if expansion is None:
            out.append(Word(surface, surface.lower(), match.start(), not out, surface[:1].isupper()))
        else:
            out += [Word(p, p.lower(), match.start(), not out, True) for p in expansion.split()]
    return tuple(out)


def set_aside(text: str) -> tuple[str, list[str]]:
    """The text with the bracketed spans that follow its subject removed (statements about the subject: a birth
    date, a pronunciation), and those spans; a span later in the text annotates the word before it ("Prism
    (2013)", "American Broadcasting Company (ABC)") and stays in its clause, brackets dropped."""
    if not _BRACKETS.search(text):
        return text, []
    main: list[str] = []
    spans: list[str] = []
    stack: list[list[str]] = []
    aside: list[bool] = []
    for char in text:
        if char in _OPEN:
            aside.append((bool(stack) and aside[-1]) or _in_subject("".join(main)))
            stack.append([])
        elif char in _CLOSE and stack:
            inner, own = "".join(stack.pop()), aside.pop()
            if own:
                spans.append(inner)
            else:
                (stack[-1] if stack else main).append(f" {inner} ")
        elif stack:
            stack[-1].append(char)
        else:
            main.append(char)
    spans += ["".join(s) for s in stack]  # an unclosed bracket: its text is still a statement of the source
    return "".join(main), spans


def _in_subject(before: str) -> bool:
    """No predicate word yet: a bracket here is about the subject."""
    found = words(before)
    return subject_end(found) >= len(found) and not any(verb_form(w) for w in found[1:])


def verb_form(word: Word) -> bool:
    """A word that starts a predicate: an auxiliary, an irregular verb form, or a lower-case -ed form."""
    if word.lower in AUXILIARIES or word.lower in IRREGULAR_VERBS:
        return True
    return not word.capitalised and len(word.lower) > 3 and word.lower.endswith("ed") and not word.lower.endswith("eed")


def _participle(word: Word) -> bool:
    """A verb form that can open a clause after a comma: -ed and irregular forms, and -ing forms ("starring")."""
    return verb_form(word) or (not word.capitalised and len(word.lower) > 5 and word.lower.endswith("ing")
                               and word.lower not in _INTRODUCING)


# -ing words that introduce examples or a reference, not a new predicate: "alumni, including five presidents".
_INTRODUCING = word_set("including excluding according regarding concerning following notwithstanding")


def clauses(text: str, claim: bool = False) -> list[str]:
    """The clauses of a plain text: its main text cut at clause boundaries, then each parenthetical set aside.
    A claim is also cut before a participle that follows a noun ("a cricketer born in July"): each of its
    predicates is then bound on its own, which never makes a fact's clause looser."""
    return list(_clauses(text, claim))


# one sentence is cut by several checks (analysis, frames, groups, profiles: up to 6 texts a sentence); a bound of
# a few sentences keeps no sentence from one judgement to the next
@lru_cache(maxsize=16)
def _clauses(text: str, claim: bool) -> tuple[str, ...]:
    main, spans = set_aside(text)
    out = _cut(main, claim)
    for span in spans:
        for part in life_dates(span):
            out += _cut_at_words(part, claim)
    return tuple(c for c in out if WORD.search(c) or re.search(r"\d", c))


_RANGE = re.compile(r"\s[\u2013\u2014\u2212-]\s")
_YEAR = re.compile(r"\b\d{3,4}\b")


def life_dates(span: str) -> list[str]:
    """A set-aside span cut at its dashes. "(April 14, 1866 -- October 20, 1936)" after a name is the encyclopedic
    convention for birth and death: the two dates read as "born ..." and "died ..." (a span that says "born"
    itself keeps its own words)."""
    parts = _RANGE.split(span)
    if len(parts) == 2 and all(_YEAR.search(p) for p in parts) and not any(
            verb_form(w) and w.lower != "born" for p in parts for w in words(p)):
        first = parts[0] if re.search(r"\bborn\b", parts[0], re.IGNORECASE) else f"born {parts[0]}"
        return [first, f"died {parts[1]}"]
    return parts


def _cut(text: str, claim: bool) -> list[str]:
    pieces = re.split(r";|:\s|\s[\u2013\u2014\u2212]\s", text)
    out: list[str] = []
    for piece in pieces:
        out += _cut_at_words(piece, claim)
    return out


def _cut_at_words(text: str, claim: bool = False) -> list[str]:
    found = words(text)
    cuts: list[int] = []
    for i, word in enumerate(found):
        if word.lower in _CUT_WORDS and i > 0:
            cuts.append(word.start)
            continue
        after = found[i + 1] if i + 1 < len(found) else None
        if after is None:
            continue
        between = text[word.start + len(word.surface):after.start]
        if word.lower in ("and", "or") and (_participle(after) or (
                after.lower in _PRONOUNS and i + 2 < len(found) and verb_form(found[i + 2]))):
            cuts.append(word.start)  # "... in 1972, and she opened a gallery in 1980": a clause of its own
        elif ("," in between and _COMMA.search(between) and (_participle(after) or after.lower in _RELATIVE)) \
                or (claim and not between.strip() and _reduced_relative(word, after)):
            cuts.append(after.start)
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in pairwise(bounds) if text[a:b].strip()]


def _reduced_relative(before: Word, word: Word) -> bool:
    """"a cricketer born in July": a participle right after a lower-case noun (not an auxiliary or adverb)."""
    return (verb_form(word) and word.lower not in AUXILIARIES and not before.capitalised
            and before.lower not in AUXILIARIES and before.lower not in _GET_PASSIVE
            and not before.lower.endswith("ly") and len(before.lower) > 2)


_PRONOUNS = frozenset({"he", "she", "it", "they", "we", "i", "you"})
_GET_PASSIVE = frozenset({"get", "gets", "got", "gotten", "getting"})  # "got married": the get-passive's auxiliary


def subject_end(found: Sequence[Word]) -> int:
    """Where a clause's predicate starts: its first verb form, or a present-tense verb right after a name
    ("Gross writes"); without either, after the leading run of capitalised words."""
    end = predicate_start(found)
    if end is not None:
        return end
    run = 0
    while run < len(found) and found[run].capitalised:
        run += 1
    return run


def predicate_verb(found: Sequence[Word], i: int) -> bool:
    """Whether the i-th word is a clause's verb: a verb form, not an auxiliary, not after a determiner (which makes it
    an adjective: "the delayed surgery group", "the tiered compiler")."""
    word = found[i]
    return i > 0 and verb_form(word) and word.lower not in AUXILIARIES and found[i - 1].lower not in DETERMINERS


_TIME_ADVERBS = frozenset({"first", "then", "later", "also", "subsequently", "initially", "previously", "since",
                           "still", "further", "only", "jointly", "independently", "again", "finally", "each"})


def adverb(word: Word) -> bool:
    """A word that may stand between an auxiliary and its participle: an -ly adverb or a word of time or manner."""
    return word.lower in _TIME_ADVERBS or (len(word.lower) > 4 and word.lower.endswith("ly"))


def in_compound(found: Sequence[Word], text: str, at: int) -> bool:
    """A word joined to its neighbour by a hyphen ("in-situ", "follow-up"): part of one compound word, never a
    preposition that ends a phrase."""
    word = found[at]
    end = word.start + len(word.surface)
    after = at + 1 < len(found) and text[end:found[at + 1].start] == "-"
    before = at > 0 and text[found[at - 1].start + len(found[at - 1].surface):word.start] == "-"
    return after or before


def predicate_start(found: Sequence[Word]) -> int | None:
    """The index of a clause's first predicate word, None when it has none (a fronted phrase)."""
    for i, word in enumerate(found):
        if i and (verb_form(word) or _present_after_name(found[i - 1], word)):
            return i
    return None


def _present_after_name(before: Word, word: Word) -> bool:
    return (before.capitalised and not word.capitalised and len(word.lower) > 3 and word.lower.endswith("s")
            and not word.lower.endswith(("ss", "us", "is")))


# Capitalised only because they open a sentence: never the start of a name.
SENTENCE_OPENERS = word_set("""a an the this that these those it its he she they his her their there here in on at
by for from of to with as after before during since when while although though but and or if unlike like despite
following between among among over under one some many several most all each both""")


def names(text: str) -> tuple[tuple[str, ...], ...]:
    """The runs of capitalised words of a plain text (a sentence's first word unless it is an article, pronoun,
    preposition or the like), lower-cased: the names a partial name may stand for."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    found = words(text)
    for i, word in enumerate(found):
        name_like = word.capitalised and (not word.initial or word.lower not in SENTENCE_OPENERS)
        joined = i > 0 and not text[found[i - 1].start + len(found[i - 1].surface):word.start].strip(" -'\"")
        if run and not joined:
            out.append(tuple(run))
            run = []
        if name_like:
            run.append(word.lower)
        elif run:
            out.append(tuple(run))
            run = []
    if run:
        out.append(tuple(run))
    return tuple(out)


COPULAS = word_set("is are was were be been being become becomes became remain remains remained")
_DETERMINERS = word_set("a an the another")
_NOMINAL_STOP = word_set("""in on at from by for with to into after before during since until under over between
within about against among through without near outside inside of as like than per via across along around behind
beyond despite toward towards upon who whom whose which that where when while whereas because""")


def nominals(text: str) -> list[list[Word]]:
    """What a text says its subject is: after each copula and its determiner ("is a city", "was the first woman"),
    the words up to the first preposition, relative word or verb form ("is a city | in Yavapai County")."""
    found = words(text)
    out: list[list[Word]] = []
    for i, word in enumerate(found):
        if word.lower not in COPULAS:
            continue
        j = i + 1
        while j < len(found) and (found[j].lower in ("also", "still", "now", "currently", "once", "later")
                                  or found[j].lower.endswith("ly")):
            j += 1
        if j >= len(found) or found[j].lower not in _DETERMINERS:
            continue
        region: list[Word] = []
        for later in found[j + 1:]:
            if later.lower in _NOMINAL_STOP or verb_form(later):
                break
            region.append(later)
        out.append(region)
    return out
