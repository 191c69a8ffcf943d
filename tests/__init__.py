"""Tests for the Chatterbox integration."""

import pytest

# The shared helpers assert too: pytest explains their failures as it does a test's.
pytest.register_assert_rewrite("tests.helpers")
