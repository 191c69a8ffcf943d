"""One module a language: its WORDS, a lang.language.Language."""
