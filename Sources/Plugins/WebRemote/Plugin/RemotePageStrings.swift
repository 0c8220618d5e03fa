import OtonJSON

/// The page's own words in the languages oton has a catalogue for (the host's are in
/// Sources/OtonHost/Resources/locale; the page cannot reach those, so it keeps its few here).
/// Keyed by the English text the page is written in; `{name}` placeholders are kept as they are.
/// The page picks a language from the browser's (navigator.languages); English is the fallback.
enum RemotePageStrings {
    static let russian: [String: String] = [
        "Connecting…": "Подключение…",
        "Connecting to oton…": "Подключение к oton…",
        "Play": "Играть",
        "Pause": "Пауза",
        "Stop": "Стоп",
        "Share": "Поделиться",
        "Volume": "Громкость",
        "Loudness levelling: on": "Выравнивание громкости: вкл.",
        "Loudness levelling: off": "Выравнивание громкости: выкл.",
        "gain {gain} dB": "усиление {gain} дБ",
        "Back 30 s": "Назад 30 с",
        "Behind live": "Позади эфира",
        "Live": "Эфир",
        "Back to live": "Вернуться в эфир",
        "Station": "Станция",
        "◀ Prev": "◀ Пред.",
        "Next ▶": "След. ▶",
        "Previous station": "Предыдущая станция",
        "Next station": "Следующая станция",
        "Stations": "Станции",
        "Station name, number or URL": "Название, номер или URL станции",
        "Switch": "Переключить",
        "Sleep timer": "Таймер сна",
        "Casting to {renderer}": "Трансляция на {renderer}",
        "No sleep timer set.": "Таймер сна не установлен.",
        "15 min": "15 мин",
        "30 min": "30 мин",
        "60 min": "60 мин",
        "After track": "После трека",
        "Cancel": "Отменить",
        "Sleep in 15 minutes": "Сон через 15 минут",
        "Sleep in 30 minutes": "Сон через 30 минут",
        "Sleep in 60 minutes": "Сон через 60 минут",
        "Sleep after this track": "Сон после этого трека",
        "Cancel the sleep timer": "Отменить таймер сна",
        "Press Share to share what is playing.": "Нажмите «Поделиться», чтобы поделиться тем, что играет.",
        "Recently played": "Недавно звучало",
        "No artwork": "Нет обложки",
        "Cover of {title}": "Обложка: {title}",
        "Station logo of {title}": "Логотип станции: {title}",
        "Oton's picture for {title}": "Картинка oton: {title}",
        "Break": "Перерыв",
        "Nothing playing": "Ничего не играет",
        "on {station}": "на {station}",
        "Idle": "Ожидание",
        "Buffering": "Буферизация",
        "Playing": "Играет",
        "Paused": "Пауза",
        "Stopped": "Остановлено",
        "Error": "Ошибка",
        "Error: {message}": "Ошибка: {message}",
        "Will stop in {time} (at {clock})": "Остановка через {time} (в {clock})",
        "Will pause in {time} (at {clock})": "Пауза через {time} (в {clock})",
        "Will quit in {time} (at {clock})": "Выход через {time} (в {clock})",
        "Will stop after this track.": "Остановка после этого трека.",
        "Will pause after this track.": "Пауза после этого трека.",
        "Will quit after this track.": "Выход после этого трека.",
        "Listening to {song}": "Слушаю {song}",
        "Listening to {song} on {station}": "Слушаю {song} на {station}",
        "Copied to the clipboard.": "Скопировано в буфер обмена.",
        "Cannot reach oton.": "Не удаётся связаться с oton.",
        "Connection lost; reconnecting…": "Связь потеряна; переподключение…",
    ]

    /// `{"ru": {…}}` for the page's script.
    static var catalogues: String {
        JSONValue.object(["ru": .object(russian.mapValues { .string($0) })]).jsonText
    }
}
