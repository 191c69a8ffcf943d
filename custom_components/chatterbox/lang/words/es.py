"""Spanish: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="es",
    name="Spanish",
    question_words=(
        "cuál cuáles cuándo cuánta cuántas cuánto cuántos cómo dónde es está están "
        "hay quién qué son"
    ),
    asking=(
        "dime", "dígame",
    ),
    polite=(
        "puedes", "podrías", "puede", "podría", "por favor",
    ),
    showing="ejemplo ejemplos explica explícame",
    yes=(
        "sí", "si", "claro", "vale", "de acuerdo", "ok", "okay", "por supuesto",
        "hazlo", "adelante", "dale", "venga", "correcto", "exacto", "claro que sí",
        "sí sí", "confirmo", "afirmativo",
    ),
    after_yes=(
        "por favor", "hazlo", "adelante", "dale",
    ),
    no=(
        "no", "nunca", "jamás", "cancela", "cancelar", "para", "detente", "espera",
        "más tarde", "luego", "después", "déjalo", "olvídalo", "quizás", "quizá",
        "tal vez", "ni",
    ),
    claims=(
        (
            r"\b(?:he|ha sido|han sido|está ahora|"
            r"ya está)\s+(?:\w+\s+)?(?:encendido|apagado|abierto|cerrado|bloqueado|"
            r"desbloqueado|ajustado|activado|desactivado|puesto)\w*"
        ),
        r"^\s*hecho\b",
    ),
    already="ya todavía",
    kinds={
        "light": "luz luces lámpara lámparas",
        "switch": "enchufe enchufes",
        "fan": "ventilador ventiladores",
        "cover": "persiana persianas",
        "media_player": "televisión altavoz música",
        "climate": "calefacción termostato",
        "lock": "cerradura cerraduras",
    },
    everything="todo todos todas",
    besides="excepto salvo menos",
    back="también vez",
    units="grado grados",
    verbs={
        "lock": "bloquear {names}",
        "unlock": "desbloquear {names}",
        "open": "abrir {names}",
        "close": "cerrar {names}",
        "press": "pulsar {names}",
        "run": "ejecutar {names}",
        "turn on": "encender {names}",
        "turn off": "apagar {names}",
        "stop": "detener {names}",
    },
    and_="y",
    more="{count} más",
    acts_on="{action}, que actúa sobre {names}",
    link="un enlace",
    decimal=",",
)  # fmt: skip
