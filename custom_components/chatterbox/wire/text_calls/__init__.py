"""Tool calls written as text: the streaming parser, and the prompt for them.

Servers without a tool-call parser for the model return the calls in the
content. TextToolCallParser reads them, in the formats models are trained on:

- Hermes and Qwen: <tool_call>{"name": ..., "arguments": {...}}</tool_call>,
  and Qwen3-Coder's <tool_call><function=name>...</function></tool_call>;
- Llama 3: <|python_tag|>{"name": ..., "parameters": {...}}, and the bare
  object as the whole message;
- Mistral: [TOOL_CALLS][{...}, ...] and [TOOL_CALLS]name[ARGS]{...};
- fenced ```json blocks (or ``` without a language) holding a call or a list;
- <function=name>{...}</function>, <function=name><parameter=key>value
  </parameter></function>, and <invoke name="..."><parameter name="...">
  </parameter></invoke>, optionally inside <function_calls>.

text_tool_prompt is the other half of text tool mode: the system prompt
section that describes the tools and asks for Hermes <tool_call> blocks.
"""

from .parser import (
    MAX_CALL_CHARS,
    TextPiece,
    TextToolCall,
    TextToolCallParser,
)
from .prompt import text_tool_prompt
from .readers import MAX_HOLD

__all__ = [
    "MAX_CALL_CHARS",
    "MAX_HOLD",
    "TextPiece",
    "TextToolCall",
    "TextToolCallParser",
    "text_tool_prompt",
]
