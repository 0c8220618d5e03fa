import Foundation
import OtonEffects
import OtonJSON
import OtonSupport
import Synchronization

/// Which bundle folder holds each installed LV2 plugin, so that a chain's plugin is read from its own
/// bundle alone (``EffectCatalogue``, `oton_lv2_find_in_bundle`): an installed collection (lsp-plugins-lv2,
/// calf, x42: hundreds of plugins, tens of MB of Turtle) costs a start nothing.
///
/// Built from the bundles' manifests only (`oton_lv2_each_bundle`) and kept in
/// `$XDG_CACHE_HOME/oton/lv2-bundles.json` with the stamp it was built for: every bundle folder on the
/// search path with its and its manifest's modification times. A start compares the stamp (a `stat`
/// per bundle) and rebuilds only when a bundle was added, removed or changed.
public enum LV2BundleIndex {
    /// lilv's own search path when LV2_PATH is not set (Debian's liblilv-0 is built with it).
    public static let defaultSearchPath = "~/.lv2:/usr/lib/x86_64-linux-gnu/lv2:/usr/lib/lv2:/usr/local/lib/lv2"

    struct Index: Equatable {
        var stamp: [String]
        var bundles: [String: String]
    }

    private static let memo = Mutex<Index?>(nil)

    /// The bundle folder holding `uri`, nil when no installed bundle declares it. `rebuild`: read the
    /// manifests again even when the stamp is unchanged (a bundle said to hold a URI did not).
    public static func bundle(for uri: String, environment: [String: String] = ProcessInfo.processInfo.environment, rebuild: Bool = false)
        -> String?
    {
        let folders = searchPath(environment)
        let stamp = stamp(folders)
        return memo.withLock { memo -> String? in
            if !rebuild, let index = memo, index.stamp == stamp { return index.bundles[uri] }
            let file = XDGPaths(environment: environment).otonCache.map { $0 + "/lv2-bundles.json" }
            if !rebuild, let file, let cached = read(file), cached.stamp == stamp {
                memo = cached
                return cached.bundles[uri]
            }
            let index = Index(stamp: stamp, bundles: manifests(folders))
            memo = index
            if let file { write(index, to: file) }
            return index.bundles[uri]
        }
    }

    /// The folders LV2 bundles are looked for in: LV2_PATH, else lilv's default, `~` made `$HOME`.
    static func searchPath(_ environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? ""
        let path = environment["LV2_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSearchPath
        return path.split(separator: ":").map { $0.hasPrefix("~/") ? home + $0.dropFirst() : String($0) }
    }

    /// Every bundle folder in `folders`, each with its and its manifest's modification times, in order.
    static func stamp(_ folders: [String]) -> [String] {
        var stamp: [String] = []
        for folder in folders {
            stamp.append("path \(folder)")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() {
                let bundle = folder + "/" + name
                guard let folderTime = modified(bundle, folder: true) else { continue }
                stamp.append("\(bundle) \(folderTime) \(modified(bundle + "/manifest.ttl", folder: false) ?? "-")")
            }
        }
        return stamp
    }

    private static func modified(_ path: String, folder: Bool) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, folder == ((info.st_mode & S_IFMT) == S_IFDIR) else { return nil }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// URI → bundle folder, from every manifest in `folders`.
    private static func manifests(_ folders: [String]) -> [String: String] {
        final class Found { var bundles: [String: String] = [:] }
        let found = Found()
        withExtendedLifetime(found) {
            _ = oton_lv2_each_bundle(
                folders.joined(separator: ":"),
                { context, uri, bundle in
                    guard let context, let uri, let bundle else { return }
                    let found = Unmanaged<Found>.fromOpaque(context).takeUnretainedValue()
                    var folder = String(cString: bundle)
                    while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
                    found.bundles[String(cString: uri)] = folder
                }, Unmanaged.passUnretained(found).toOpaque())
        }
        return found.bundles
    }

    private static func read(_ file: String) -> Index? {
        guard let data = FileManager.default.contents(atPath: file), let json = try? JSONValue.parse(data, maxBytes: 16 << 20),
            case let .array(stamp)? = json["stamp"], case let .object(plugins)? = json["plugins"]
        else { return nil }
        let lines = stamp.compactMap(\.stringValue)
        let bundles = plugins.compactMapValues(\.stringValue)
        guard lines.count == stamp.count, bundles.count == plugins.count else { return nil }
        return Index(stamp: lines, bundles: bundles)
    }

    /// Best effort: without a cache folder the next start reads the manifests again.
    private static func write(_ index: Index, to file: String) {
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let json: JSONValue = ["stamp": .array(index.stamp.map(JSONValue.string)), "plugins": .object(index.bundles.mapValues(JSONValue.string))]
        try? AtomicFileWriter.write(Data(json.jsonText.utf8), to: file)
    }
}
