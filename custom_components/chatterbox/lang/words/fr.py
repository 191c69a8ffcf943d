"""French: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="fr",
    name="French",
    question_words=(
        "combien comment est où pourquoi quand quel quelle quelles quels qui "
        "sont"
    ),
    asking=(
        "dis-moi", "dites-moi",
    ),
    polite=(
        "peux tu", "peux-tu", "pouvez vous", "pouvez-vous", "pourrais tu",
        "pourrais-tu", "pourriez vous", "pourriez-vous", "est-ce que tu peux",
        "est-ce que vous pouvez",
    ),
    showing="exemple exemples explique expliquez décris",
    yes=(
        "oui", "ouais", "d'accord", "ok", "okay", "bien sûr", "vas-y", "allez-y",
        "volontiers", "certainement", "absolument", "je confirme", "confirmé",
        "oui oui", "exactement", "tout à fait", "bien entendu", "c'est bon",
        "fais-le", "faites-le",
    ),
    after_yes=(
        "s'il te plaît", "s'il vous plaît", "stp", "svp", "vas-y", "allez-y",
        "fais-le", "faites-le",
    ),
    no=(
        "non", "ne", "pas", "jamais", "annule", "annuler", "arrête", "arrêter",
        "stop", "attends", "attendez", "plus tard", "laisse tomber", "peut-être",
        "rien", "nan", "oublie",
    ),
    claims=(
        (
            r"\b(?:j'ai|a été|ont été|est maintenant|"
            r"sont maintenant)\s+(?:\w+\s+)?(?:allumé|éteint|ouvert|fermé|"
            r"verrouillé|déverrouillé|réglé|baissé|monté|activé|désactivé|lancé|"
            r"arrêté)\w*"
        ),
        r"^\s*(?:c'est )?fait\b",
    ),
    already="déjà toujours",
    kinds={
        "light": "lumière lumières lampe lampes",
        "switch": "prise prises",
        "fan": "ventilateur ventilateurs",
        "cover": "volet volets store stores",
        "media_player": "télé télévision enceinte musique",
        "climate": "chauffage thermostat",
        "lock": "serrure serrures",
    },
    everything="tout tous toutes",
    besides="sauf excepté hormis",
    back="lui aussi encore également",
    units="pourcent degré degrés",
    verbs={
        "lock": "verrouiller {names}",
        "unlock": "déverrouiller {names}",
        "open": "ouvrir {names}",
        "close": "fermer {names}",
        "press": "appuyer sur {names}",
        "run": "lancer {names}",
        "turn on": "allumer {names}",
        "turn off": "éteindre {names}",
        "stop": "arrêter {names}",
    },
    and_="et",
    more="{count} autres",
    acts_on="{action}, qui agit sur {names}",
    link="un lien",
    decimal=",",
)  # fmt: skip
