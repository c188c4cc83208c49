"""Where the Suggest button's OpenAI-compatible endpoint is configured (QSettings), and a
small dialog to set it. Off until a base URL is entered."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLineEdit, QVBoxLayout, QWidget

from core.loop.suggest import SuggestConfig

from cauterule_gui.plain_text import plain_label

KEY_URL, KEY_MODEL, KEY_API_KEY, KEY_TIMEOUT = ("llm/base_url", "llm/model", "llm/api_key", "llm/timeout")


def load_config(settings: QSettings) -> SuggestConfig:
    timeout = settings.value(KEY_TIMEOUT, 30.0)
    try:
        seconds = float(timeout)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        seconds = 30.0
    return SuggestConfig(str(settings.value(KEY_URL, "") or ""), str(settings.value(KEY_MODEL, "local") or "local"),
                         str(settings.value(KEY_API_KEY, "") or "") or None, seconds)


def save_config(settings: QSettings, config: SuggestConfig) -> None:
    settings.setValue(KEY_URL, config.base_url.strip())
    settings.setValue(KEY_MODEL, config.model.strip() or "local")
    settings.setValue(KEY_API_KEY, config.api_key or "")
    settings.setValue(KEY_TIMEOUT, config.timeout)
    settings.sync()


class LlmSettingsDialog(QDialog):
    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("llmSettingsDialog")
        self.setWindowTitle("LLM endpoint for Suggest")
        self._settings = settings
        config = load_config(settings)
        self.url_edit = QLineEdit(config.base_url, self)
        self.url_edit.setPlaceholderText("http://127.0.0.1:8080/v1  (llama.cpp, Ollama: http://127.0.0.1:11434/v1)")
        self.model_edit = QLineEdit(config.model, self)
        self.key_edit = QLineEdit(config.api_key or "", self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.timeout_box = QDoubleSpinBox(self)
        self.timeout_box.setRange(1.0, 600.0)
        self.timeout_box.setValue(config.timeout)
        self.timeout_box.setSuffix(" s")
        form = QFormLayout()
        form.addRow("Base URL:", self.url_edit)
        form.addRow("Model:", self.model_edit)
        form.addRow("API key (optional):", self.key_edit)
        form.addRow("Timeout:", self.timeout_box)
        note = plain_label("Leave the base URL empty to turn Suggest off. The trajectory's task, steps and "
                           "errors are sent to this endpoint.", self)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def accept(self) -> None:
        save_config(self._settings, SuggestConfig(self.url_edit.text(), self.model_edit.text(),
                                                  self.key_edit.text() or None, self.timeout_box.value()))
        super().accept()
