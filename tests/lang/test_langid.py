"""Language identification: determinism, codes, page sampling, and accuracy on real pages."""

from __future__ import annotations

import json
import math
import os
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from operator import attrgetter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.lang import langid
from pipeline.lang import profiles as langprofiles
from pipeline.lang.langid import (
    LOW_CONFIDENCE,
    SAMPLE_CHARS,
    detect,
    detect_blocks,
    normalize_code,
    sample_text,
)
from pipeline.lang.stoplists import available_languages
from pipeline.types import UND, Block, LangGuess, Shape

ENGLISH = (
    "The committee met on Tuesday to discuss the new budget, and most of its members agreed "
    "that the proposal would need several changes before it could be approved."
)
GERMAN = (
    "Der Ausschuss hat sich am Dienstag getroffen, um über den neuen Haushalt zu sprechen, und "
    "die meisten Mitglieder waren sich einig, dass der Vorschlag geändert werden muss."
)
SAMPLES = {
    "en": ENGLISH,
    "de": GERMAN,
    "zh": "委员会星期二开会讨论新的预算，大多数成员认为这个提案在批准之前需要做一些修改。",
    "ja": "委員会は火曜日に新しい予算について話し合い、"
    "ほとんどの委員が提案には修正が必要だと考えた。",
    "th": "คณะกรรมการประชุมกันในวันอังคารเพื่อหารือเกี่ยวกับงบประมาณใหม่ และสมาชิกส่วนใหญ่เห็นด้วย",
    "ko": "위원회는 화요일에 새 예산을 논의하기 위해 모였고 "
    "대부분의 위원들은 제안을 수정해야 한다고 생각했다.",
    "ru": "Комитет собрался во вторник, чтобы обсудить новый бюджет, "
    "и большинство его членов согласились.",
    "my": "ကော်မတီသည် အင်္ဂါနေ့တွင် ဘတ်ဂျက်အသစ်အကြောင်း ဆွေးနွေးရန် တွေ့ဆုံခဲ့သည်။",
    "fr": "Le comité s'est réuni mardi pour discuter du nouveau budget, et la plupart de ses "
    "membres ont convenu que la proposition devait être modifiée.",
    "es": "El comité se reunió el martes para discutir el nuevo presupuesto, y la mayoría de sus "
    "miembros estuvo de acuerdo en que la propuesta necesitaba cambios.",
    "it": "Il comitato si è riunito martedì per discutere il nuovo bilancio, e la maggior parte "
    "dei suoi membri ha convenuto che la proposta doveva essere modificata.",
    "pt": "O comitê reuniu-se na terça-feira para discutir o novo orçamento, e a maioria dos seus "
    "membros concordou que a proposta precisava de mudanças.",
    "nl": "De commissie kwam dinsdag bijeen om de nieuwe begroting te bespreken, en de meeste "
    "leden waren het erover eens dat het voorstel moest worden aangepast.",
    "pl": "Komisja zebrała się we wtorek, aby omówić nowy budżet, a większość jej członków "
    "zgodziła się, że propozycja wymaga zmian.",
    "sv": "Kommittén sammanträdde i tisdags för att diskutera den nya budgeten, och de flesta av "
    "ledamöterna var överens om att förslaget behövde ändras.",
    "fi": "Valiokunta kokoontui tiistaina keskustelemaan uudesta talousarviosta, ja useimmat sen "
    "jäsenistä olivat yhtä mieltä siitä, että ehdotusta on muutettava.",
    "tr": "Komite yeni bütçeyi görüşmek için salı günü toplandı ve üyelerinin çoğu teklifin "
    "değiştirilmesi gerektiği konusunda hemfikirdi.",
    "vi": "Ủy ban đã họp vào thứ Ba để thảo luận về ngân sách mới, và hầu hết các thành viên "
    "đồng ý rằng đề xuất cần được thay đổi.",
    "uk": "Комітет зібрався у вівторок, щоб обговорити новий бюджет, і більшість його членів "
    "погодилися, що пропозицію потрібно змінити.",
    "el": "Η επιτροπή συνεδρίασε την Τρίτη για να συζητήσει τον νέο προϋπολογισμό, και τα "
    "περισσότερα μέλη της συμφώνησαν ότι η πρόταση χρειάζεται αλλαγές.",
    "ar": "اجتمعت اللجنة يوم الثلاثاء لمناقشة الميزانية الجديدة، "
    "واتفق معظم أعضائها على أن الاقتراح يحتاج إلى تعديلات.",
    "fa": "کمیته روز سه‌شنبه برای بحث درباره بودجه جدید تشکیل جلسه داد "
    "و بیشتر اعضای آن موافق بودند که پیشنهاد باید تغییر کند.",
    "he": "הוועדה התכנסה ביום שלישי כדי לדון בתקציב החדש, ורוב חבריה הסכימו שההצעה זקוקה לשינויים.",
    "hi": "समिति ने नए बजट पर चर्चा करने के लिए मंगलवार को बैठक की, "
    "और अधिकांश सदस्यों ने माना कि प्रस्ताव में बदलाव की आवश्यकता है।",
}


def block(index: int, text: str, link_chars: int = 0, pre: bool = False) -> Block:
    if pre:
        return Block(
            index,
            text,
            "pre",
            "html.body.pre",
            "pre",
            False,
            len(text),
            len(text.split()),
            link_chars,
            1,
            11,
            shape=Shape(pre=index + 1),
        )
    return Block(
        index, text, "p", "html.body.p", "p", False, len(text), len(text.split()), link_chars, 1, 7
    )


# --- codes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("en", "en"),
        ("EN", "en"),
        (" de ", "de"),
        ("zh-cn", "zh"),
        ("zh-TW", "zh"),
        ("zh_Hant_TW", "zh"),
        ("pt-BR", "pt"),
        ("sr-Latn", "sr"),
        ("iw", "he"),
        ("in", "id"),
        ("nb", "no"),
        ("nn", "no"),
        ("no", "no"),
        ("fil", "tl"),
        ("cmn", "zh"),
        ("xh", "xh"),  # well-formed, no stoplist: kept, stoplist() gives None
        ("und", "und"),
        ("mul", "und"),
        ("zxx", "und"),
        ("", "und"),
        ("english", "und"),
        ("12", "und"),
        ("-", "und"),
    ],
)
def test_normalize_code(raw: str, code: str) -> None:
    assert normalize_code(raw) == code


def test_every_langdetect_language_maps_to_a_stoplist() -> None:
    profiles = Path(pytest.importorskip("langdetect").__file__).parent / "profiles"
    codes = {normalize_code(p.name) for p in profiles.iterdir()}
    # Punjabi (Gurmukhi) has no stoplist: jusText's Western_Panjabi is Shahmukhi ("pnb").
    assert codes - available_languages() == {"pa"}
    assert "zh" in codes and "zh-cn" not in codes


# --- detection ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_detects_sample_languages(code: str) -> None:
    guess = detect(SAMPLES[code])
    assert guess.code == code
    assert guess.prob >= LOW_CONFIDENCE


@pytest.mark.parametrize(
    "text", ["", "   ", "!!! ??? ... ---", "12345 678", "http://example.com/a"]
)
def test_und_when_nothing_detectable(text: str) -> None:
    assert detect(text) == UND
    assert detect_blocks([block(0, text)] if text else []) == UND


def test_same_answer_every_call_and_in_a_fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # Short, ambiguous text: langdetect's random trials used to disagree here without a seed.
    texts = ["ok ok", "la casa", "Paris Berlin", "banana", ENGLISH[:40], *SAMPLES.values()]
    first = [detect(t) for t in texts]
    for _ in range(3):
        assert [detect(t) for t in texts] == first
    monkeypatch.setattr(langprofiles, "_model", None)  # as in a new worker process
    assert [detect(t) for t in texts] == first


def test_threads_building_the_model_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langprofiles, "_model", None)
    built: list[langprofiles.NgramModel] = []
    real_load = langprofiles._load_or_build
    monkeypatch.setattr(
        langprofiles, "_load_or_build", lambda: built.append(real_load()) or built[-1]
    )
    with ThreadPoolExecutor(4) as pool:
        guesses = list(pool.map(detect, [GERMAN] * 8))
    assert len(set(guesses)) == 1 and guesses[0].code == "de"
    assert len(built) == 1  # the lock: one load per process, however many threads race


def test_guess_is_reported_with_its_probability() -> None:
    guess = detect(ENGLISH + " " + GERMAN)
    assert guess.code in {"en", "de"}
    assert 0.0 < guess.prob <= 1.0


def test_probability_is_a_confidence() -> None:
    # A sentence is near-certain; a word or two that several languages share is not.
    for text in SAMPLES.values():
        assert detect(text).prob > 0.99
    for text in ("la casa", "ok ok", "Paris Berlin", "NASA"):
        assert detect(text).prob < LOW_CONFIDENCE
    # More of the same text never makes the guess less sure.
    assert detect(SAMPLES["nl"][:30]).prob <= detect(SAMPLES["nl"]).prob


def test_zh_cn_and_zh_tw_probabilities_are_added() -> None:
    # Two characters that both Chinese profiles know, as do ja and ko: "zh" gets the sum of the
    # two profiles' shares of the posterior, so it is more than either alone.
    text = "学校"
    model = langprofiles.model()
    scores, _ = model.score(text)
    weights = np.exp((scores - scores.max()) / langid.TEMPERATURE)
    share = dict(zip(model.languages, weights / weights.sum(), strict=True))
    assert share["zh-cn"] > 0.05 and share["zh-tw"] > 0.01
    guess = detect(text)
    assert guess.code == "zh"
    assert guess.prob == pytest.approx(share["zh-cn"] + share["zh-tw"])
    assert guess.prob < LOW_CONFIDENCE  # two characters are not much evidence


TRADITIONAL_CHINESE = (
    "委員會星期二開會討論新的預算，大多數成員認為這個提案在批准之前需要做一些修改。",
    "行政院長今日表示，政府將於下月推出新一輪經濟振興措施，協助受疫情影響的中小企業度過難關。",
    "記者報導，颱風預計明日登陸東部沿海，氣象局已發布海上及陸上颱風警報，呼籲民眾做好防颱準備。",
)


@pytest.mark.parametrize("text", TRADITIONAL_CHINESE)
def test_traditional_chinese_is_not_korean(text: str) -> None:
    # langdetect's ko profile out-scores zh-tw on Traditional Chinese (it did on a third of
    # daniel's Chinese pages): Korean is written in Hangul, and this text has none.
    model = langprofiles.model()
    scores, _ = model.score(text)
    assert model.languages[int(np.argmax(scores))] == "ko"  # the profiles alone get it wrong
    guess = detect(text)
    assert guess.code == "zh" and guess.prob > 0.99


def test_korean_and_japanese_keep_their_ideographs() -> None:
    # Hanja in Korean and kanji in Japanese do not make either Chinese: their own script is there.
    korean = "大韓民國 憲法 제1조는 대한민국은 민주공화국이라고 규정하고 있으며, 주권은 국민에게."
    japanese = "東京都議会は本日、新年度予算案を可決した。知事は記者会見で感謝を述べた。"
    assert detect(korean).code == "ko"
    assert detect(japanese).code == "ja"
    # Ideographs alone are neither: a kanji-only headline is read as Chinese, not Japanese.
    assert detect("東京都知事選挙結果発表").code == "zh"


def test_decomposed_accents_detected_like_composed() -> None:
    # Vietnamese typed with combining marks (NFD) has the letters of the profiles only once
    # composed; so has French with a combining acute.
    for code in ("vi", "fr", "pl"):
        decomposed = unicodedata.normalize("NFD", SAMPLES[code])
        assert decomposed != SAMPLES[code]
        assert detect(decomposed) == detect(SAMPLES[code])


def test_a_few_latin_words_do_not_outvote_another_script() -> None:
    # The profiles of non-Latin languages have no Latin grams at all.
    for code in ("zh", "ja", "ru", "ar", "hi"):
        assert detect(SAMPLES[code] + " Windows 10 USB Wi-Fi").code == code


def test_latin_boilerplate_does_not_outvote_chinese() -> None:
    # A Chinese forum page's sample with more Latin letters than ideographs (a browser notice, a
    # user name, a copyright line) is Chinese: an ideograph carries about a word.
    forum = (
        "Your browser is not supported. Please update it.\n"
        "有人说花钱就能解决问题，我花了一天半的时间买了四个平板，总算是解决了。\n"
        "admin_user 3 likes 1 comment\n看看匿名发出来是什么样式，大家觉得这个功能怎么样？\n"
        "Copyright 2024 Example Forum\n发表于 2024-4-5 只看该作者"
    )
    assert detect(forum).code == "zh"
    # English with a Chinese interface string or two stays English.
    english = (
        "Mother's Day is coming up in May, and whether or not you will be celebrating in person, "
        "these cards are a lovely way to say thank you.\n22 unique and funny cards that mom has "
        "not seen before\n通过 Google 继续操作\n轻松搜索"
    )
    assert detect(english).code == "en"


def test_urls_and_addresses_are_not_text() -> None:
    assert detect("https://www.example.com/about-us/contact mail@example.org") == UND
    assert detect(f"{GERMAN} https://www.example.com/the-english-words-here").code == "de"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gets_a_code_and_a_probability(text: str) -> None:
    guess = detect(text)
    assert guess == UND or (guess.known and 0.0 < guess.prob <= 1.0)
    assert guess.code == normalize_code(guess.code)


def test_broken_unicode_is_no_error() -> None:
    for text in ("\ud800 lone surrogate in English text", "\U0001f600" * 50, "\x00\x01\x7f"):
        guess = detect(text)
        assert 0.0 <= guess.prob <= 1.0


# --- the profile matrix -------------------------------------------------------------------------


def _reference_score(text: str) -> tuple[list[float], int]:
    """Naive Bayes over the text's grams, straight from the JSON profiles: the slow definition."""
    files = resources.files("langdetect").joinpath("profiles").iterdir()
    profiles = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(files, key=str)]
    points = "".join(map(chr, langprofiles.model().code_points(text)))
    totals = [0.0] * len(profiles)
    known = 0
    for n in (1, 2, 3):
        for i in range(len(points) - n + 1):
            gram = points[i : i + n]
            freqs = [p["freq"].get(gram, 0) / p["n_words"][n - 1] for p in profiles]
            if any(freqs):
                known += 1
                for j, f in enumerate(freqs):
                    totals[j] += math.log1p(f / langprofiles.SMOOTHING)
    return totals, known


def test_score_matches_the_profiles() -> None:
    # Every lookup path: 1-grams, hashed 2-/3-grams, grams whose slot was taken (overflow), grams
    # of no profile; several scripts, and the CJK, kana and Hangul classes.
    text = " ".join(SAMPLES[c][:60] for c in ("en", "de", "zh", "ja", "ko", "ru", "vi", "ar", "th"))
    expected, known = _reference_score(text)
    scores, n_grams = langprofiles.model().score(text)
    assert n_grams == known
    assert scores.tolist() == pytest.approx(expected, rel=1e-5, abs=1e-2)


def test_normalisation_is_that_of_the_profiles() -> None:
    points = langprofiles.model().code_points
    # ASCII digits and punctuation are spaces, kana and Hangul one letter per script, Vietnamese
    # tone-marked letters one class letter, Romanian comma-below s cedilla s.
    assert "".join(map(chr, points("a1,b"))) == " a  b "
    assert "".join(map(chr, points("ひらカタ한국"))) == " ああアア가가 "
    assert "".join(map(chr, points("ệș"))) == " \u1ec3\u015f "
    # Mostly Chinese: Latin letters are dropped; mostly Latin: kept.
    assert "x" not in "".join(map(chr, points("中文中文中文 x")))
    assert "x" in "".join(map(chr, points("xx yy 中")))


def test_the_normalisation_table_is_langdetects_on_every_bmp_code_point() -> None:
    # The profiles were counted over langdetect's NGram.normalize; its Python port is the
    # reference for each character (surrogates aside, which no str holds alone in text).
    table = langprofiles.model().table
    differ = [
        hex(c)
        for c in range(0x10000)
        if not 0xD800 <= c < 0xE000 and chr(int(table[c])) != _langdetect_normalize(chr(c))
    ]
    assert differ == []


def test_code_points_outside_the_bmp_stay_as_they_are() -> None:
    # The table covers U+0000-FFFF only: an emoji must not be read as the BMP character its low
    # 16 bits name (U+1F600 as U+F600), from the first code point past the table, U+10000.
    points = langprofiles.model().code_points("a\U0001f600b")
    assert points.tolist() == [0x20, ord("a"), 0x1F600, ord("b"), 0x20]
    points = langprofiles.model().code_points("a\U00010000")
    assert points.tolist() == [0x20, ord("a"), 0x10000, 0x20]


@pytest.mark.parametrize(
    "text",
    ["see https://example.com/about", "mail@example.org", "at www.example.com today"],
)
def test_each_of_a_url_s_and_an_address_s_marks_takes_it_out(text: str) -> None:
    # Each of "//", "@" and "www." alone sends the text through the URL and address filter.
    kept = "".join(map(chr, langprofiles.model().code_points(text))).split()
    assert not any("example" in word for word in kept)


def test_latin_letters_give_way_to_another_script_only_below_half() -> None:
    def normalised(text: str) -> str:
        return "".join(map(chr, langprofiles.model().code_points(text)))

    ideographs = "".join(map(_langdetect_normalize, "中文中文中文"))
    # Mostly ideographs: every ASCII letter, "A" and "z" at the ends of the range, becomes a
    # space, as the profiles of those languages hold no Latin grams.
    assert normalised("中文中文中文 Az") == f" {ideographs}    "
    # Two letters against one ideograph (four letters' worth): a tie, the letters stay.
    assert normalised("ab 中") == f" ab {_langdetect_normalize('中')} "
    # One more letter of another script tips it: 2 x 2 < 1 + 1 + 3.
    assert "ab" not in normalised("ab 中д")
    # Latin Extended Additional (U+1E00-1EFF, Vietnamese) is Latin: it does not outweigh the
    # ASCII letters; Greek Extended (U+1F00 on) is another script, as is U+0300 on.
    assert "ab" in normalised("ab " + "\u1e00" * 5 + "\u1eff" * 5)
    assert "ab" not in normalised("ab " + "\u1f00" * 5)
    assert "ab" not in normalised("ab " + "\u0300" * 5)
    # Kana and Hangul syllables count as ideographs do.
    assert "ab" not in normalised("ab ひд")
    assert "ab" not in normalised("ab 한д")


def _langdetect_normalize(ch: str) -> str:
    from langdetect.utils.ngram import NGram

    return NGram.normalize(ch)


def test_every_profile_gram_is_found() -> None:
    model = langprofiles.model()
    total = 0
    for f in resources.files("langdetect").joinpath("profiles").iterdir():
        grams = json.loads(f.read_text(encoding="utf-8"))["freq"]
        # Each gram on its own, padded as a word would not be: look up the raw code points.
        for gram in list(grams)[::50]:
            total += 1
            key = langprofiles.gram_key(gram)
            if len(gram) == 1:
                row = int(model.unigram_rows[ord(gram)])
            else:
                row = int(model.slots[langprofiles._slot(np.array([key]))[0]])
                if int(model.keys[row]) != key:  # its slot was taken: in the overflow list
                    at = int(np.searchsorted(model.overflow_keys, key))
                    row = int(model.overflow_rows[at])
            assert int(model.keys[row]) == key
    assert total > 3000


# --- page sampling ------------------------------------------------------------------------------


def test_sample_is_bounded_and_prefers_long_unlinked_blocks() -> None:
    menu = block(0, "Home About Contact Login Register Search " * 5, link_chars=200)
    short = block(1, "Share")
    prose = [block(i, f"{i}. {GERMAN * 3}") for i in range(2, 6)]
    sample = sample_text([menu, short, *prose])
    assert len(sample) <= SAMPLE_CHARS + 5  # plus one separator per block
    assert "Home" not in sample and "Share" not in sample
    assert sample.count("\n") >= 2  # several blocks, not one
    assert detect_blocks([menu, short, *prose]).code == "de"


RUST = (
    'extern "C" {\n    fn console_log(start: i32);\n}\n\nfn cstr(s: &str) -> i32 {\n'
    "    std::ffi::CString::new(s).unwrap().into_raw() as i32\n}\n" * 3
)


def test_code_is_sampled_only_when_nothing_else() -> None:
    # A Japanese post about Rust: its longest blocks are its code, which reads as English.
    code = [block(i, RUST, pre=True) for i in range(3)]
    prose = block(3, SAMPLES["ja"] * 2)
    sample = sample_text([*code, prose])
    assert sample.startswith(SAMPLES["ja"][:20]) and "extern" in sample
    assert detect_blocks([*code, prose]).code == "ja"
    assert detect_blocks(code).code == "en"  # a page of code alone is still read


def test_a_repeated_text_is_sampled_once() -> None:
    # An English licence line in the header and in the footer of a Japanese news page.
    notice = ENGLISH * 2
    page = [block(0, notice), block(1, notice), block(2, SAMPLES["ja"] * 2)]
    assert sample_text(page).count(notice[:50]) == 1
    assert detect_blocks(page).code == "ja"


def test_links_used_when_nothing_else() -> None:
    links = block(0, ENGLISH, link_chars=len(ENGLISH))
    assert sample_text([links]) == ENGLISH[: SAMPLE_CHARS // 3]
    assert detect_blocks([links]).code == "en"


def test_page_language_outvotes_one_foreign_block() -> None:
    foreign = block(0, ENGLISH * 4)  # the longest block, e.g. an English legal notice
    page = [foreign, *(block(i, GERMAN) for i in range(1, 5))]
    assert detect_blocks(page).code == "de"


def _reference_sample(blocks: list[Block], max_chars: int) -> str:
    """The sample as its docstring defines it: prose longest first, then links and code longest
    first, a text already taken skipped."""
    usable = [b for b in blocks if b.n_chars]

    def later(b: Block) -> bool:
        return b.n_link_chars / b.n_chars > 0.5 or (b.shape is not None and b.shape.pre > 0)

    ranked = sorted((b for b in usable if not later(b)), key=attrgetter("n_chars"), reverse=True)
    ranked += sorted((b for b in usable if later(b)), key=attrgetter("n_chars"), reverse=True)
    per_block = max(100, max_chars // 3)
    parts: list[str] = []
    total = 0
    for b in ranked:
        if total >= max_chars:
            break
        part = b.text[: min(per_block, max_chars - total)]
        if part not in parts:
            parts.append(part)
            total += len(part) + 1
    return "\n".join(parts)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 400), st.floats(0, 1), st.integers(0, 40), st.booleans()),
        max_size=30,
    ),
    st.sampled_from([100, 300, 1000]),
)
def test_sample_is_the_documented_one(
    sizes: list[tuple[int, float, int, bool]], max_chars: int
) -> None:
    # Words drawn from 41 names, so that blocks repeat one another's text now and then.
    blocks = [
        block(i, (f"w{word} " * n)[:n], link_chars=int(n * share), pre=pre)
        for i, (n, share, word, pre) in enumerate(sizes)
    ]
    assert sample_text(blocks, max_chars) == _reference_sample(blocks, max_chars)


def test_langguess_type() -> None:
    guess = detect_blocks([block(0, ENGLISH)])
    assert isinstance(guess, LangGuess) and guess.known


# --- real pages (../shared) ---------------------------------------------------------------------


def _page_blocks(page) -> list[Block]:
    from pipeline.html.decode import decode_html
    from pipeline.html.segment import parse, segment

    return segment(parse(decode_html(page.read_html()).html))


@pytest.mark.shared
def test_accuracy_on_multilingual_dev(multilingual_dir: Path) -> None:
    from pipeline.evaluate.datasets import load_dataset

    pages = load_dataset(multilingual_dir)
    guesses = [detect_blocks(_page_blocks(p)) for p in pages]
    correct = sum(g.code == p.language for g, p in zip(guesses, pages, strict=True))
    # Measured 293/297 (langdetect's own detector: 288); the misses are isiXhosa/isiZulu and
    # Icelandic, which no profile covers (bench/langid.py). The 3 Japanese pages whose longest
    # blocks are code or an English notice printed twice are read as Japanese since code and
    # repeats wait in the sample.
    assert correct >= 292
    assert all(0.0 < g.prob <= 1.0 for g in guesses)


@pytest.mark.shared
def test_accuracy_on_wcxb_sample(wcxb_dir: Path) -> None:
    from pipeline.evaluate.datasets import load_dataset

    step = int(os.environ.get("WARCCLEAN_WCXB_STEP", "10"))
    pages = load_dataset(wcxb_dir)[::step]
    guesses = [detect_blocks(b) for b in map(_page_blocks, pages) if b]
    # Measured on all pages: 1340/1350 of those with text (langdetect's own detector: 1338).
    assert sum(g.code == "en" for g in guesses) / len(guesses) >= 0.97


@pytest.mark.shared
def test_accuracy_on_daniel_chinese(daniel_dir: Path) -> None:
    from pipeline.evaluate.datasets import load_dataset

    pages = [p for p in load_dataset(daniel_dir) if p.language == "zh"]
    codes = [detect_blocks(_page_blocks(p)).code for p in pages]
    # Measured 399/399 (the last two are GB2312 stored as windows-1252 mojibake, which the
    # decoder repairs); before Korean needed Hangul, 136 of them (Big5 and Hong Kong news) were
    # detected as Korean.
    assert len(pages) == 399
    assert sum(c == "zh" for c in codes) >= 398
    assert "ko" not in codes


def test_japanese_and_korean_are_ruled_out_of_text_without_their_script() -> None:
    # Gated on kana and hangul: text holding neither (no ideographs either) can be neither.
    codes, profile_code = langid._codes()
    for text in ("plain latin words", "Съешь же ещё этих булок", "東京"):
        logits = [0.0] * len(profile_code)
        langid._gate_scripts(text, logits, profile_code)
        gated = {codes[c] for c, v in zip(profile_code, logits, strict=True) if v == -math.inf}
        assert gated == {"ja", "ko"}, text
    logits = [0.0] * len(profile_code)
    langid._gate_scripts("ひらがなとカタカナ", logits, profile_code)
    gated = {codes[c] for c, v in zip(profile_code, logits, strict=True) if v == -math.inf}
    assert gated == {"ko"}


def test_a_script_without_a_profile_must_hold_half_the_letters() -> None:
    # Georgian prose with one Burmese letter in it is Georgian, though Burmese is looked for first.
    georgian = "კომიტეტი სამშაბათს შეიკრიბა ახალი ბიუჯეტის განსახილველად"
    guess = detect(georgian + " က")
    assert guess.code == "ka" and 0.9 < guess.prob <= 1.0
    # Burmese as a third of the letters decides nothing by script.
    assert langid._by_script(SAMPLES["my"] + " " + "abcdefghij" * 20) is None
