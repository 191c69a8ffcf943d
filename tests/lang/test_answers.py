"""The assistant asks "Do you want me to unlock Front door?" and reads the answer.

Only a clear yes unlocks: a yes phrase, then nothing but more yes phrases or
polite words ("Ja, bitte!", "Tak, zrób to"). A no or a hesitation anywhere drops
the held unlock ("Yes... no wait", "si no", "Maybe later"), and so does anything
else ("OK thanks", "Yes? What do you mean?"). Every language's words count in
every conversation.
"""

from hypothesis import example, given, settings, strategies as st
import pytest

from custom_components.chatterbox.lang import LANGUAGES as WORDS
from custom_components.chatterbox.lang.answers import MAX_ANSWER_CHARS, is_yes
from custom_components.chatterbox.lang.text import plain_words as normalise

# Every language's negations, as answers are read.
NO = frozenset(
    words
    for language in WORDS.values()
    for phrase in language.no
    if (words := tuple(normalise(phrase)))
)

CONFIRM, DROP = True, False

# What people answer, in each supported language, and whether the door unlocks.
ANSWERS: dict[str, list[tuple[str, bool]]] = {
    "en": [
        ("Yes", CONFIRM), ("yes.", CONFIRM), ("Yes, please.", CONFIRM),
        ("Yeah, go ahead.", CONFIRM), ("Yep!", CONFIRM), ("Sure, do it.", CONFIRM),
        ("OK", CONFIRM), ("Okay, please do.", CONFIRM),
        ("Alright, go for it.", CONFIRM), ("All right.", CONFIRM),
        ("Of course!", CONFIRM), ("Absolutely, please.", CONFIRM),
        ("Yes, I confirm.", CONFIRM), ("Confirmed.", CONFIRM),
        ("Yes yes, go ahead", CONFIRM), ("Definitely.", CONFIRM),
        ("Yes I do.", CONFIRM), ("Sure thing!", CONFIRM), ("YES, PROCEED", CONFIRM),
        ("Go ahead.", CONFIRM), ("Certainly, go ahead please", CONFIRM),
        ("Yup, do it!", CONFIRM), ("Correct.", CONFIRM), ("Yes!!! 🙂", CONFIRM),
        ("", DROP), ("   ", DROP), ("\t\n", DROP), ("No", DROP), ("No, thanks.", DROP),
        ("Nope.", DROP), ("Yes... no wait", DROP), ("Not now.", DROP), ("Don't.", DROP),
        ("Maybe later.", DROP), ("Wait.", DROP), ("Never mind.", DROP),
        ("OK thanks", DROP), ("Yes? What do you mean?", DROP), ("Yesterday", DROP),
        ("Yes, but lock it again in five minutes", DROP), ("Hold on a second", DROP),
        ("Cancel that.", DROP), ("Okay, nevermind", DROP), ("Yes, thank you", DROP),
        ("Which door?", DROP), ("yesyes", DROP), ("Please.", DROP),
        ("I'd rather not.", DROP), ("Sure, why not?", DROP), ("Yes, unlock it", DROP),
    ],
    "de": [
        ("Ja", CONFIRM), ("Ja, bitte!", CONFIRM), ("Jawohl.", CONFIRM),
        ("Klar, mach das.", CONFIRM), ("Na klar!", CONFIRM), ("Ja, gerne.", CONFIRM),
        ("Okay, mach es bitte.", CONFIRM), ("Sicher.", CONFIRM), ("Genau.", CONFIRM),
        ("Ja genau, bitte", CONFIRM), ("Auf jeden Fall!", CONFIRM),
        ("Ich bestätige.", CONFIRM), ("Einverstanden.", CONFIRM),
        ("Natürlich, bitte schön.", CONFIRM), ("In Ordnung.", CONFIRM),
        ("Jo, leg los.", CONFIRM), ("JA BITTE", CONFIRM), ("Richtig.", CONFIRM),
        ("Bestätigt!", CONFIRM), ("Ja, mach das bitte", CONFIRM),
        ("Ja, klar.", CONFIRM), ("Jap.", CONFIRM), ("Gerne!", CONFIRM),
        ("Nein", DROP), ("Nein, lass es.", DROP), ("Nee.", DROP), ("Nö", DROP),
        ("Jein", DROP), ("Ja... nein, warte", DROP), ("Nicht jetzt.", DROP),
        ("Später bitte", DROP), ("Vielleicht.", DROP), ("Warte mal", DROP),
        ("Moment mal", DROP), ("Vergiss es.", DROP), ("Ja, danke", DROP),
        ("Ok danke", DROP), ("Ja? Welche Tür?", DROP), ("Japan", DROP),
        ("Abbrechen!", DROP), ("Halt, stopp!", DROP), ("Lieber nicht", DROP),
        ("Keine Ahnung", DROP), ("Ja, aber erst später", DROP), ("Wie bitte?", DROP),
        ("Bitte nicht!", DROP), ("Ja, warum nicht", DROP),
    ],
    "fr": [
        ("Oui", CONFIRM), ("Oui, s'il te plaît.", CONFIRM),
        ("Oui, s’il vous plaît", CONFIRM), ("Ouais, vas-y !", CONFIRM),  # noqa: RUF001
        ("D'accord.", CONFIRM), ("OK, allez-y.", CONFIRM), ("Bien sûr !", CONFIRM),
        ("Volontiers.", CONFIRM), ("Je confirme.", CONFIRM), ("Oui oui", CONFIRM),
        ("Exactement.", CONFIRM), ("Tout à fait.", CONFIRM),
        ("Bien entendu, vas-y", CONFIRM), ("C'est bon, fais-le.", CONFIRM),
        ("Absolument, svp", CONFIRM), ("Certainement.", CONFIRM),
        ("Confirmé.", CONFIRM), ("Oui, faites-le s'il vous plaît.", CONFIRM),
        ("Ouais stp", CONFIRM), ("Vas-y", CONFIRM), ("Okay, d'accord", CONFIRM),
        ("Oui, bien sûr.", CONFIRM),
        ("Non", DROP), ("Non, pas maintenant", DROP), ("Non merci", DROP),
        ("Oui merci", DROP), ("Pas maintenant.", DROP), ("Plus tard", DROP),
        ("Attends !", DROP), ("Laisse tomber.", DROP), ("Peut-être", DROP),
        ("Oui... non, attends", DROP), ("Je ne sais pas", DROP), ("Annule.", DROP),
        ("Oui ? Quelle porte ?", DROP), ("Ouistiti", DROP), ("Ne fais rien", DROP),
        ("Surtout pas !", DROP), ("Oui, mais pas la porte du garage", DROP),
        ("Arrête.", DROP), ("C'est bon, merci", DROP), ("Nan.", DROP),
        ("Oublie ça.", DROP), ("Jamais de la vie", DROP), ("Pourquoi pas ?", DROP),
    ],
    "es": [
        ("Sí", CONFIRM), ("Sí, por favor.", CONFIRM), ("Si, por favor", CONFIRM),
        ("¡Claro!", CONFIRM), ("Vale.", CONFIRM), ("Vale, hazlo.", CONFIRM),
        ("De acuerdo.", CONFIRM), ("Por supuesto.", CONFIRM), ("¡Adelante!", CONFIRM),
        ("Dale", CONFIRM), ("Venga, dale.", CONFIRM), ("Claro que sí.", CONFIRM),
        ("Sí, sí.", CONFIRM), ("Confirmo.", CONFIRM), ("Afirmativo.", CONFIRM),
        ("Exacto.", CONFIRM), ("Correcto, adelante.", CONFIRM),
        ("OK, hazlo por favor.", CONFIRM), ("Sí, claro.", CONFIRM),
        ("Sí, adelante.", CONFIRM), ("¡Sí, hazlo!", CONFIRM),
        ("No", DROP), ("No, gracias.", DROP), ("Sí, gracias", DROP), ("si no", DROP),
        ("Ahora no", DROP), ("Más tarde.", DROP), ("Luego", DROP),
        ("Espera un momento", DROP), ("Déjalo.", DROP), ("Olvídalo", DROP),
        ("Quizás.", DROP), ("Tal vez mañana", DROP), ("Sí... no, espera", DROP),
        ("¿Qué puerta?", DROP), ("Siempre", DROP), ("Cancela eso", DROP),
        ("Para, para", DROP), ("Ni hablar", DROP), ("Nunca.", DROP),
        ("Sí, pero después", DROP), ("No sé", DROP), ("Claro, pero no ahora", DROP),
        ("Vale, gracias", DROP), ("¿Por qué no?", DROP),
    ],
    "it": [
        ("Sì", CONFIRM), ("Sì, per favore.", CONFIRM), ("Si, per piacere", CONFIRM),
        ("Certo!", CONFIRM), ("Va bene.", CONFIRM), ("D'accordo.", CONFIRM),
        ("OK, fallo.", CONFIRM), ("Procedi.", CONFIRM), ("Vai!", CONFIRM),
        ("Esatto.", CONFIRM), ("Certamente.", CONFIRM), ("Assolutamente sì", CONFIRM),
        ("Confermo.", CONFIRM), ("Sì sì, vai.", CONFIRM), ("Certo che sì!", CONFIRM),
        ("Senz'altro.", CONFIRM), ("Volentieri.", CONFIRM),
        ("Va bene, procedi per favore.", CONFIRM), ("Sì, certo.", CONFIRM),
        ("Vai pure!", CONFIRM), ("Certo, fallo pure.", CONFIRM),
        ("No", DROP), ("No, grazie.", DROP), ("Sì, grazie", DROP), ("Non ora", DROP),
        ("Non adesso.", DROP), ("Più tardi", DROP), ("Aspetta!", DROP),
        ("Forse.", DROP), ("Lascia perdere.", DROP), ("Lascia stare", DROP),
        ("Sì... no, aspetta", DROP), ("Annulla.", DROP), ("Fermati!", DROP),
        ("Mai.", DROP), ("Dopo, grazie", DROP), ("Quale porta?", DROP),
        ("Siamo sicuri?", DROP), ("Non lo so", DROP), ("Niente", DROP),
        ("Sì, ma non adesso", DROP), ("Va bene, grazie", DROP),
        ("Certo, ma dopo", DROP),
    ],
    "nl": [
        ("Ja", CONFIRM), ("Ja, graag.", CONFIRM), ("Ja, alsjeblieft!", CONFIRM),
        ("Jawel.", CONFIRM), ("Jazeker!", CONFIRM), ("Ja hoor.", CONFIRM),
        ("Zeker.", CONFIRM), ("Prima.", CONFIRM), ("Oké, doe maar.", CONFIRM),
        ("Doe maar.", CONFIRM), ("Doe het.", CONFIRM), ("Ga je gang.", CONFIRM),
        ("Ga door.", CONFIRM), ("Goed.", CONFIRM), ("Is goed.", CONFIRM),
        ("Akkoord.", CONFIRM), ("Natuurlijk!", CONFIRM), ("Ja ja, doe maar", CONFIRM),
        ("Ik bevestig.", CONFIRM), ("Ok, graag", CONFIRM), ("Ja, alstublieft", CONFIRM),
        ("Zeker weten!", CONFIRM),
        ("Nee", DROP), ("Nee, dank je.", DROP), ("Nee hoor", DROP), ("Niet nu.", DROP),
        ("Later", DROP), ("Straks", DROP), ("Wacht even", DROP), ("Laat maar.", DROP),
        ("Misschien.", DROP), ("Ja... nee, wacht", DROP), ("Ja, dank je", DROP),
        ("Oké, bedankt", DROP), ("Welke deur?", DROP), ("Jammer", DROP),
        ("Nooit!", DROP), ("Stop!", DROP), ("Geen idee", DROP), ("Annuleer dat.", DROP),
        ("Ja, maar niet nu", DROP), ("Liever niet", DROP), ("Neen.", DROP),
        ("Ik weet het niet", DROP), ("Ja? Wat bedoel je?", DROP),
    ],
    "pl": [
        ("Tak", CONFIRM), ("Tak, proszę", CONFIRM), ("Tak, zrób to.", CONFIRM),
        ("Jasne!", CONFIRM), ("Oczywiście.", CONFIRM), ("Dobrze.", CONFIRM),
        ("Dobra, zrób to", CONFIRM), ("OK", CONFIRM), ("Okej, proszę", CONFIRM),
        ("Śmiało!", CONFIRM), ("Potwierdzam.", CONFIRM), ("Pewnie.", CONFIRM),
        ("Tak tak", CONFIRM), ("Zgoda.", CONFIRM), ("Tak jest!", CONFIRM),
        ("Do dzieła!", CONFIRM), ("Tak, poproszę.", CONFIRM),
        ("Jasne, śmiało", CONFIRM), ("Proszę bardzo", CONFIRM),
        ("Tak, oczywiście", CONFIRM), ("Pewnie, proszę", CONFIRM),
        ("Zrób to!", CONFIRM),
        ("Nie", DROP), ("Nie teraz", DROP), ("Nie, dziękuję.", DROP),
        ("Tak, nie", DROP), ("Tak, dziękuję", DROP), ("Może później.", DROP),
        ("Chyba tak", DROP), ("Czekaj!", DROP), ("Zaczekaj chwilę", DROP),
        ("Później", DROP), ("Daj spokój", DROP), ("Zostaw to.", DROP),
        ("Anuluj.", DROP), ("Przestań", DROP), ("Nigdy.", DROP),
        ("Tak... nie, czekaj", DROP), ("Które drzwi?", DROP), ("Takie sobie", DROP),
        ("Taksówka", DROP), ("Nie wiem", DROP), ("Dobra, dzięki", DROP),
        ("Tak, ale nie teraz", DROP), ("Proszę?", DROP),
    ],
    "pt": [
        ("Sim", CONFIRM), ("Sim, por favor.", CONFIRM), ("Sim, pode.", CONFIRM),
        ("Claro!", CONFIRM), ("Pode.", CONFIRM), ("Pode ser.", CONFIRM),
        ("Com certeza!", CONFIRM), ("Faça, por favor", CONFIRM), ("Faz.", CONFIRM),
        ("Vai!", CONFIRM), ("Certo.", CONFIRM), ("Tá bom.", CONFIRM),
        ("Está bem.", CONFIRM), ("Sim sim", CONFIRM), ("Claro que sim!", CONFIRM),
        ("Confirmo.", CONFIRM), ("Isso!", CONFIRM), ("Isso mesmo.", CONFIRM),
        ("Beleza, pode fazer.", CONFIRM), ("Avança.", CONFIRM), ("Ok, pode", CONFIRM),
        ("Sim, claro", CONFIRM),
        ("Não", DROP), ("Não, obrigado.", DROP), ("Sim, obrigado", DROP),
        ("Agora não", DROP), ("Mais tarde", DROP), ("Depois.", DROP),
        ("Espera aí", DROP), ("Espere um pouco", DROP), ("Deixa pra lá.", DROP),
        ("Esquece.", DROP), ("Talvez.", DROP), ("Sim... não, espera", DROP),
        ("Qual porta?", DROP), ("Simpático", DROP), ("Nunca!", DROP),
        ("Cancela.", DROP), ("Para!", DROP), ("Nem pensar", DROP), ("Não sei", DROP),
        ("Pode ser, mas depois", DROP), ("Sim, mas não agora", DROP),
        ("Tá bom, valeu", DROP), ("Sim? Como assim?", DROP),
    ],
    "sv": [
        ("Ja", CONFIRM), ("Ja tack.", CONFIRM), ("Ja, gör det.", CONFIRM),
        ("Japp!", CONFIRM), ("Jadå.", CONFIRM), ("Javisst!", CONFIRM),
        ("Visst.", CONFIRM), ("Absolut!", CONFIRM), ("Okej.", CONFIRM),
        ("Ok, kör.", CONFIRM), ("Kör på!", CONFIRM), ("Självklart.", CONFIRM),
        ("Ja ja", CONFIRM), ("Gärna.", CONFIRM), ("Ja, gärna", CONFIRM),
        ("Gör det.", CONFIRM), ("Ja, kör", CONFIRM), ("Visst, tack.", CONFIRM),
        ("Absolut, gör det", CONFIRM), ("Okej, tack", CONFIRM),
        ("Nej", DROP), ("Nej tack.", DROP), ("Inte nu", DROP), ("Senare.", DROP),
        ("Vänta lite", DROP), ("Glöm det.", DROP), ("Kanske.", DROP),
        ("Ja... nej, vänta", DROP), ("Vilken dörr?", DROP), ("Japan", DROP),
        ("Aldrig!", DROP), ("Avbryt.", DROP), ("Stopp!", DROP),
        ("Strunta i det", DROP), ("Jag vet inte", DROP), ("Ja, men inte nu", DROP),
        ("Okej, senare", DROP), ("Ja? Vad menar du?", DROP), ("Tack", DROP),
        ("Hej då", DROP),
    ],
    "da": [
        ("Ja", CONFIRM), ("Ja tak.", CONFIRM), ("Ja, gør det.", CONFIRM),
        ("Jo!", CONFIRM), ("Jep.", CONFIRM), ("Javel.", CONFIRM),
        ("Klart!", CONFIRM), ("Selvfølgelig.", CONFIRM), ("Okay.", CONFIRM),
        ("Ok, kør.", CONFIRM), ("Bare gør det!", CONFIRM), ("Ja ja", CONFIRM),
        ("Gerne.", CONFIRM), ("Ja, gerne", CONFIRM), ("Gør det.", CONFIRM),
        ("Ja, kør", CONFIRM), ("Klart, tak.", CONFIRM),
        ("Selvfølgelig, gør det", CONFIRM), ("Okay, tak", CONFIRM),
        ("Jep, gør det", CONFIRM),
        ("Nej", DROP), ("Nej tak.", DROP), ("Ikke nu", DROP), ("Senere.", DROP),
        ("Vent lidt", DROP), ("Glem det.", DROP), ("Måske.", DROP),
        ("Ja... nej, vent", DROP), ("Hvilken dør?", DROP), ("Jakke", DROP),
        ("Aldrig!", DROP), ("Annuller.", DROP), ("Stop!", DROP),
        ("Lad være", DROP), ("Det ved jeg ikke", DROP), ("Ja, men ikke nu", DROP),
        ("Okay, senere", DROP), ("Ja? Hvad mener du?", DROP), ("Tak", DROP),
        ("Farvel", DROP),
    ],
    "nb": [
        ("Ja", CONFIRM), ("Ja takk.", CONFIRM), ("Ja, gjør det.", CONFIRM),
        ("Jo!", CONFIRM), ("Jepp.", CONFIRM), ("Javisst.", CONFIRM),
        ("Selvfølgelig!", CONFIRM), ("Greit.", CONFIRM), ("Okei.", CONFIRM),
        ("Ok, kjør.", CONFIRM), ("Kjør på!", CONFIRM), ("Ja ja", CONFIRM),
        ("Gjerne.", CONFIRM), ("Ja, gjerne", CONFIRM), ("Gjør det.", CONFIRM),
        ("Ja, kjør", CONFIRM), ("Greit, takk.", CONFIRM), ("Absolutt!", CONFIRM),
        ("Absolutt, gjør det", CONFIRM), ("Jepp, takk", CONFIRM),
        ("Nei", DROP), ("Nei takk.", DROP), ("Ikke nå", DROP), ("Senere.", DROP),
        ("Vent litt", DROP), ("Glem det.", DROP), ("Kanskje.", DROP),
        ("Ja... nei, vent", DROP), ("Hvilken dør?", DROP), ("Japan", DROP),
        ("Aldri!", DROP), ("Avbryt.", DROP), ("Stopp!", DROP),
        ("La være", DROP), ("Jeg vet ikke", DROP), ("Ja, men ikke nå", DROP),
        ("Greit, senere", DROP), ("Ja? Hva mener du?", DROP), ("Takk", DROP),
        ("Ha det", DROP),
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "answer", "expected"),
    [
        pytest.param(language, answer, expected, id=f"{language}-{number}")
        for language, rows in ANSWERS.items()
        for number, (answer, expected) in enumerate(rows, start=1)
    ],
)
def test_what_people_answer(language: str, answer: str, expected: bool) -> None:  # noqa: FBT001
    """The user answers in their language; the door unlocks only on a clear yes."""
    assert is_yes(answer, language) is expected


@pytest.mark.parametrize(
    ("answer", "language", "expected"),
    [
        ("Tak", "pl", CONFIRM),
        ("Tak", "da", DROP),  # Danish thanks
        ("Ja tak", "da", CONFIRM),  # Danish yes please
        ("Ja tak", "en", DROP),
        ("OK", "da", CONFIRM),
        ("Tak, proszę", "pl-PL", CONFIRM),
        ("Ja, bitte", "de-CH", CONFIRM),
        ("Sim, pode", "pt_BR", CONFIRM),
        ("Ja", "en", DROP),
        ("Yes, please", "fr", CONFIRM),
        ("Oui", None, DROP),
        ("Yes", None, CONFIRM),
        ("Yes?", "en", DROP),
        ("¿Sí?", "es", DROP),
    ],
)
def test_the_conversations_language_chooses_the_yes_words(
    answer: str,
    language: str | None,
    expected: bool,  # noqa: FBT001
) -> None:
    """A yes counts in the conversation's language or English; a question never."""
    assert is_yes(answer, language) is expected


def test_every_language_has_its_answers() -> None:
    """Each supported language is tried with at least 40 answers, yes and no."""
    assert set(ANSWERS) == set(WORDS)
    for rows in ANSWERS.values():
        confirms = sum(expected for _, expected in rows)
        assert len(rows) >= 40
        assert len(rows) / 3 <= confirms <= len(rows) * 2 / 3


def test_the_longest_answer_read() -> None:
    """A yes padded to the limit still confirms; one character more and it drops."""
    assert is_yes("yes" + " " * (MAX_ANSWER_CHARS - 3))
    assert not is_yes("yes" + " " * (MAX_ANSWER_CHARS - 2))


def test_no_yes_or_polite_phrase_holds_a_no() -> None:
    """No yes or polite phrase contains a negation as a run of its words.

    Otherwise "please do" with "do" a no, say, could never confirm; and a
    language's no would be hidden inside another language's yes.
    """
    clashes = [
        (language, phrase, " ".join(no))
        for language, words in WORDS.items()
        for phrase in (*words.yes, *words.after_yes)
        for no in NO
        if any(
            tuple(plain[start : start + len(no)]) == no
            for plain in [normalise(phrase)]
            for start in range(len(plain))
        )
    ]
    assert clashes == []


def test_every_phrase_reads_as_words() -> None:
    """Every phrase in the word lists is made of words an answer can match."""
    for words in WORDS.values():
        for phrase in (*words.yes, *words.after_yes, *words.no):
            assert normalise(phrase), phrase


NO_PHRASES = [phrase for words in WORDS.values() for phrase in words.no]
# Marks people type between words; none of them joins two words into one.
SEPARATORS = [" ", ", ", ". ", "! ", "? ", "... ", "…", " - ", "\n", "\t", "¡", "¿"]
SEPARATORS += ["; ", ": ", '"', " (", ") ", " 👍 ", "!!", ",,"]


@st.composite
def typed(draw: st.DrawFn, phrases: list[str]) -> str:
    """One phrase as someone might type it, any letter in capitals or not."""
    phrase = draw(st.sampled_from(phrases))
    capitals = draw(st.lists(st.booleans(), min_size=len(phrase), max_size=len(phrase)))
    return "".join(
        char.upper() if capital else char
        for char, capital in zip(phrase, capitals, strict=True)
    )


@st.composite
def answers_with_a_no(draw: st.DrawFn) -> tuple[str, str, bool, str]:
    """Return an answer with a no in it, the same without, if it is clean, its language.

    The answer starts with a yes phrase of its language or English, goes on
    with yes and polite phrases or random text, and has a no phrase from any
    language put in anywhere as whole words, between marks that split words.
    It is clean when it holds nothing but those phrases and no question mark.
    """
    language = draw(st.sampled_from(sorted(WORDS)))
    own, english = WORDS[language], WORDS["en"]
    starts = [*own.yes, *english.yes]
    follows = [*starts, *own.after_yes, *english.after_yes]
    words = typed(follows).map(lambda phrase: (phrase, True))
    noise = st.text(max_size=8).map(lambda text: (text, False))
    pieces = [(draw(typed(starts)), True)]
    pieces += draw(st.lists(words | noise, max_size=6))
    where = draw(st.integers(0, len(pieces)))
    no = draw(typed(NO_PHRASES))
    marks = draw(
        st.lists(
            st.sampled_from(SEPARATORS), min_size=len(pieces), max_size=len(pieces)
        )
    )
    edges = st.sampled_from(["", *SEPARATORS])
    before, after = draw(edges), draw(edges)

    def joined(texts: list[str]) -> str:
        between = zip(marks, texts[1:], strict=False)
        return before + texts[0] + "".join(m + text for m, text in between) + after

    texts = [text for text, _ in pieces]
    with_no = joined([*texts[:where], no, *texts[where:]])
    without_no = joined(texts)
    clean = all(is_word for _, is_word in pieces) and not {"?", "¿"} & set(without_no)
    return with_no, without_no, clean, language


@given(answer=answers_with_a_no())
@example(answer=("Yes... no wait", "Yes...", True, "en"))
@example(answer=("Tak, NIE", "Tak", True, "pl"))
def test_a_no_anywhere_drops(answer: tuple[str, str, bool, str]) -> None:
    """The user says yes, but a no or a hesitation is somewhere in the answer.

    Whatever else is said, in whichever language or case, the door stays
    locked; the same answer of yes and polite words without the no confirms.
    """
    with_no, without_no, clean, language = answer
    assert len(with_no) <= MAX_ANSWER_CHARS
    assert not is_yes(with_no, language)
    if clean:
        assert is_yes(without_no, language)


# Some very long answers, about a megabyte each, made of any repeated text.
LONG_TEXT = st.text(min_size=1, max_size=12).map(
    lambda text: text * (1_000_000 // len(text))
)


@settings(max_examples=1000)
@given(text=st.text(max_size=2 * MAX_ANSWER_CHARS) | LONG_TEXT)
@example(text="yes " * 250_000)
@example(text="yes" + "!" * MAX_ANSWER_CHARS)
@example(text="yes \ud800 \u0301\u200b please")
def test_any_text_is_read(text: str) -> None:
    """Whatever arrives as the answer, it is read as a yes or not, never an error.

    An answer longer than the limit is a sentence, not a yes: it never confirms.
    """
    confirms = is_yes(text)
    assert isinstance(confirms, bool)
    if len(text) > MAX_ANSWER_CHARS:
        assert not confirms


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        pytest.param("okej tak tak jest", "pl", id="pl-phrase-inside-a-longer-one"),
        pytest.param("ja ja gerne", "de", id="de-repeated-yes"),
    ],
)
def test_a_yes_is_read_over_any_split_of_its_phrases(
    answer: str, language: str
) -> None:
    """A yes whose words also make a longer phrase is still a yes.

    "tak tak" is a phrase of its own, yet "okej tak tak jest" reads as "okej",
    "tak" and "tak jest": the longest phrase first would leave "jest" alone.
    """
    assert is_yes(answer, language)
