import Foundation
import OtonJSON
import OtonSupport

/// The wishlist: `wishlist.json` in the user's config folder, beside the plugins.json that
/// `oton stations` edits (the folder of --config FILE or $OTON_CONFIG, else `$XDG_CONFIG_HOME/oton`,
/// default `~/.config/oton`). `{"wishes": [{"pattern": "Кино - *", "field": "track"}, …]}`, in the
/// order they were added. Edited as plugins.json is: under the folder's lock, replaced atomically;
/// a file that does not read as a wishlist is reported with its line and column and never written.
public struct WishlistFile: Sendable {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The file is small by nature; anything larger is not a wishlist.
    public static let maxBytes = 4 << 20
    public static let fileName = "wishlist.json"

    public let path: String
    public var wishes: [Wish]

    /// Where the wishlist of this configuration lives.
    public static func path(explicitConfig: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) -> String {
        if let explicitConfig { return folder(of: explicitConfig) + "/" + fileName }
        if let named = environment["OTON_CONFIG"], !named.isEmpty { return folder(of: named) + "/" + fileName }
        guard let folder = XDGPaths(environment: environment).otonConfig else {
            throw Failure(description: tr("no folder for the wishlist: neither XDG_CONFIG_HOME nor HOME is set; pass --config FILE"))
        }
        return folder + "/" + fileName
    }

    private static func folder(of file: String) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Reads the wishlist; a missing file is an empty list.
    public static func load(_ path: String) throws(Failure) -> WishlistFile {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw Failure(description: tr("cannot read the wishlist {path}; check its permissions", ["path": path]))
            }
            return WishlistFile(path: path, wishes: [])
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        let damaged = { (reason: String) in
            Failure(
                description: tr(
                    "the wishlist {path} cannot be read: {reason} — it was left as it is; correct it in an editor or move it away",
                    ["path": path, "reason": reason]))
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(data, maxBytes: maxBytes)
        } catch {
            throw damaged(error.description)
        }
        guard case let .object(members) = root, case let .array(items)? = members["wishes"] else {
            throw damaged(tr("it has no \"wishes\" array"))
        }
        var wishes: [Wish] = []
        for (index, item) in items.enumerated() {
            guard let pattern = item["pattern"]?.stringValue,
                let field = Wish.Field(rawValue: item["field"]?.stringValue ?? Wish.Field.track.rawValue)
            else {
                throw damaged(tr("wish {number} needs a \"pattern\" and a \"field\" of track, artist or title", ["number": String(index + 1)]))
            }
            do {
                wishes.append(try Wish(pattern: pattern, field: field))
            } catch {
                throw damaged(tr("wish {number}: {problem}", ["number": String(index + 1), "problem": error.description]))
            }
        }
        return WishlistFile(path: path, wishes: wishes)
    }

    /// Loads, changes and writes the wishlist under the folder's lock (two edits at once both land).
    /// `change` throws to leave the file as it was.
    @discardableResult
    public static func edit<T>(_ path: String, _ change: (inout WishlistFile) throws(Failure) -> T) throws(Failure) -> T {
        let folder = folder(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: tr("cannot create {folder}: {reason}", ["folder": folder, "reason": error.localizedDescription]))
        }
        return try ConfigFolderLock.holding(path) { () throws(Failure) -> T in
            var file = try load(path)
            let result = try change(&file)
            try file.save()
            return result
        }
    }

    /// The document as written: one wish a line, so a person can read and diff it.
    public var text: String {
        let lines = wishes.map { wish in
            "    " + JSONValue.object(["pattern": .string(wish.pattern), "field": .string(wish.field.rawValue)]).jsonText
        }
        return lines.isEmpty ? "{\"wishes\": []}\n" : "{\"wishes\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    private func save() throws(Failure) {
        do {
            try AtomicFileWriter.write(Data(text.utf8), to: path)
        } catch {
            throw Failure(description: error.description)
        }
    }
}
