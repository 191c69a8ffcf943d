"""Make the test plugin work on Home Assistant 2026.11 as well as 2026.10.

Loaded with ``-p`` (see pyproject.toml), so it runs before the plugin that the
pytest-homeassistant-custom-component entry point brings in.
"""

import homeassistant  # noqa: F401  # 2026.11 aliases httpx to httpx2 on import
from homeassistant.components import logger

# 2026.11 moved this helper to logger.helpers; the plugin still imports it from
# the package.
if not hasattr(logger, "_clear_logger_overwrites"):  # pragma: no cover
    from homeassistant.components.logger.helpers import _clear_logger_overwrites

    logger._clear_logger_overwrites = _clear_logger_overwrites  # type: ignore[attr-defined]
