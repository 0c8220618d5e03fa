import Foundation

/// What a station a person types (`oton stations add NAME URL`) may be: the rules the directory
/// client applies to what the directory sends. A name is one line of printable text of at most
/// 200 characters; an address is an http(s) URL, or a local file that exists. Typed input that
/// breaks them is refused with why (nothing is written); a name from an imported playlist is
/// cleaned the way a directory name is.
public enum StationInput {
    public static var maxNameLength: Int { DirectoryStation.maxTextLength }
    public static var maxURLLength: Int { DirectoryStation.maxURLLength }

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case emptyName
        case controlCharacters(String)
        case nameTooLong(Int)
        case urlTooLong(Int)
        case notWeb(String)
        case noSuchFile(String)

        public var description: String {
            switch self {
            case .emptyName: "the name is empty; give the station a name"
            case let .controlCharacters(what): "the \(what) contains control characters (escape sequences, line breaks or the like); type it without them"
            case let .nameTooLong(count): "the name has \(count) characters; at most \(StationInput.maxNameLength) are kept in plugins.json"
            case let .urlTooLong(count): "the URL has \(count) bytes; at most \(StationInput.maxURLLength) are accepted"
            case let .notWeb(url):
                "\"\(url)\" is not an http(s) URL or a local file; give the station's stream or playlist address, e.g. https://host/stream.mp3"
            case let .noSuchFile(path): "\(path): no such file; a local station must be a file that exists"
            }
        }
    }

    /// The name as given, or why it is refused.
    public static func checkedName(_ raw: String) throws(Problem) -> String {
        let name = raw.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw .emptyName }
        guard !name.unicodeScalars.contains(where: DirectoryStation.isUnprintable) else { throw .controlCharacters("name") }
        guard name.count <= maxNameLength else { throw .nameTooLong(name.count) }
        return name
    }

    /// A name from a file (a playlist's title): control characters dropped, cut to the limit.
    public static func cleanedName(_ raw: String) -> String? {
        DirectoryStation.text(.string(raw)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The address as given (a file path as a file:// URL), or why it is refused.
    public static func checkedURL(_ raw: String) throws(Problem) -> String {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard text.utf8.count <= maxURLLength else { throw .urlTooLong(text.utf8.count) }
        guard !text.unicodeScalars.contains(where: DirectoryStation.isUnprintable) else { throw .controlCharacters("URL") }
        let scheme = URL(string: text)?.scheme?.lowercased()
        if scheme == "http" || scheme == "https" {
            guard DirectoryStation.webURL(.string(text)) != nil else { throw .notWeb(text) }
            return text
        }
        let path: String
        if scheme == "file" {
            path = URL(string: text)?.path ?? ""
        } else if scheme == nil, text.hasPrefix("/") || text.hasPrefix(".") {
            path = URL(fileURLWithPath: text).standardizedFileURL.path
        } else {
            throw .notWeb(text)
        }
        var isFolder: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw .noSuchFile(path.isEmpty ? text : path)
        }
        return scheme == "file" ? text : URL(fileURLWithPath: path).absoluteString
    }
}
