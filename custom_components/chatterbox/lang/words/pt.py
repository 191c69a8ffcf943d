"""Portuguese: the words Chatterbox reads and says besides its translations."""

from ..language import Language

WORDS = Language(
    code="pt",
    name="Portuguese",
    question_words=(
        "como está estão há onde porquê quais qual quando quanta quantas quanto "
        "quantos quem será são é"
    ),
    asking=(
        "diz-me", "diga-me",
    ),
    polite=(
        "pode", "podes", "poderia", "poderias", "podia", "consegues", "você pode",
        "por favor", "faz favor", "se faz favor",
    ),
    showing="exemplo exemplos explique explica mostra mostre descreve descreva",
    yes=(
        "sim", "claro", "ok", "okay", "pode", "pode ser", "com certeza", "faça",
        "faz", "vai", "certo", "tá bom", "está bem", "sim sim", "claro que sim",
        "confirmo", "isso", "isso mesmo", "avança", "beleza", "pode fazer",
    ),
    after_yes=(
        "por favor", "pode", "faça", "faz", "vai",
    ),
    no=(
        "não", "nunca", "jamais", "cancela", "cancelar", "pare", "para", "espera",
        "espere", "mais tarde", "depois", "deixa pra lá", "esquece", "talvez", "nem",
    ),
    claims=(
        (
            r"\b(?:liguei|desliguei|acendi|apaguei|abri|fechei|tranquei|destranquei|"
            r"ajustei|ativei|desativei|defini|coloquei)\b"
        ),
        (
            r"\b(?:foi|foram|está agora|estão agora)\s+(?:\w+\s+)?(?:ligad|desligad|"
            r"aces|apagad|abert|fechad|trancad|destrancad|ajustad|ativad|desativad|"
            r"definid)\w*"
        ),
        r"^\s*(?:feito|pronto)\b",
    ),
    already="já ainda",
    kinds={
        "light": "luz luzes lâmpada lâmpadas",
        "switch": "tomada tomadas",
        "fan": "ventoinha ventoinhas ventilador ventiladores",
        "cover": "persiana persianas estore estores",
        "media_player": "televisão tv coluna música",
        "climate": "aquecimento termóstato termostato",
        "lock": "fechadura fechaduras",
    },
    everything="tudo todos todas",
    besides="exceto excepto salvo menos",
    back="também novamente",
    units="grau graus",
    verbs={
        "lock": "trancar {names}",
        "unlock": "destrancar {names}",
        "open": "abrir {names}",
        "close": "fechar {names}",
        "press": "premir {names}",
        "run": "executar {names}",
        "turn on": "ligar {names}",
        "turn off": "desligar {names}",
        "stop": "parar {names}",
    },
    and_="e",
    more="mais {count}",
    acts_on="{action}, que atua em {names}",
    link="um link",
    decimal=",",
    percent="{number}%",
)  # fmt: skip
