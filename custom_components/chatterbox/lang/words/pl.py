"""Polish: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="pl",
    name="Polish",
    question_words=(
        "co czy dlaczego gdzie ile jaka jaki "
        "jakie jaką kiedy kto która które który"
    ),
    asking=(
        "powiedz",
    ),
    polite=(
        "czy możesz", "czy mógłbyś", "czy mogłabyś", "czy możecie", "czy można",
        "możesz", "proszę",
    ),
    showing="przykład przykłady przykładu wyjaśnij opisz",
    yes=(
        "tak", "tak jest", "jasne", "oczywiście", "dobrze", "dobra", "ok", "okej",
        "okay", "zrób to", "śmiało", "potwierdzam", "pewnie", "tak tak", "zgoda",
        "proszę bardzo", "do dzieła",
    ),
    after_yes=(
        "proszę", "zrób to", "śmiało", "poproszę",
    ),
    no=(
        "nie", "nigdy", "anuluj", "stop", "przestań", "czekaj", "zaczekaj",
        "poczekaj", "później", "daj spokój", "zostaw", "może", "chyba", "wstrzymaj",
    ),
    claims=(
        (
            r"\b(?:włączył|wyłączył|zgasił|zapalił|zamknął|zamknęł|otworzył|ustawił|"
            r"uruchomił|zatrzymał|zablokował|odblokował|przyciemnił|rozjaśnił)\w*"
        ),
        (
            r"\b(?:został|została|zostało|zostały|zostali|jest teraz|"
            r"są teraz)\s+(?:\w+\s+)?(?:włączon|wyłączon|zgaszon|zapalon|zamknięt|"
            r"otwart|ustawion|uruchomion|zablokowan|odblokowan)\w*"
        ),
        r"^\s*(?:gotowe|zrobione)\b",
    ),
    already="już nadal wciąż",
    kinds={
        "light": "światło światła lampa lampy lampę",
        "switch": "przełącznik gniazdko gniazdka wtyczka",
        "fan": "wentylator wentylatory",
        "cover": "roleta rolety żaluzje zasłony",
        "media_player": "telewizor głośnik głośniki muzyka",
        "climate": "ogrzewanie termostat grzejnik",
        "lock": "zamek zamki",
    },
    everything="wszystko wszystkie wszystkich",
    besides="oprócz poza prócz",
    back="to go je ją też także znowu ponownie",
    units="procent procentów procenty procentach stopni stopnie stopień stopnia",
    verbs={
        "lock": "zablokować {names}",
        "unlock": "odblokować {names}",
        "open": "otworzyć {names}",
        "close": "zamknąć {names}",
        "press": "nacisnąć {names}",
        "run": "uruchomić {names}",
        "turn on": "włączyć {names}",
        "turn off": "wyłączyć {names}",
        "stop": "zatrzymać {names}",
    },
    and_="i",
    more="{count} innych",
    acts_on="{action}, co działa na {names}",
    link="link",
    decimal=",",
    percent="{number}%",
)  # fmt: skip
