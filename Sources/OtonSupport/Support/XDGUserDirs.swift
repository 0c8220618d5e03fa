import Foundation

/// The desktop's named folders in `user-dirs.dirs` (what xdg-user-dirs writes: `XDG_MUSIC_DIR="$HOME/Musik"`),
/// read as GLib reads them: a value is `$HOME/…` or an absolute path, anything else counts as unset;
/// the last line for a name wins.
public enum XDGUserDirs {
    /// The folder `text` names for `key` ("XDG_MUSIC_DIR"), `$HOME` being `home`; nil when it names none.
    public static func folder(_ key: String, in text: String, home: String?) -> String? {
        var found: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + "=\""), trimmed.hasSuffix("\""), trimmed.count >= key.count + 3 else { continue }
            let value = trimmed.dropFirst(key.count + 2).dropLast()
            if value.hasPrefix("$HOME") {
                let rest = value.dropFirst("$HOME".count)
                guard let home, rest.isEmpty || rest.hasPrefix("/") else { continue }
                found = home + rest
            } else if value.hasPrefix("/") {
                found = String(value)
            }
        }
        while let path = found, path.count > 1, path.hasSuffix("/") { found = String(path.dropLast()) }
        return found
    }
}
