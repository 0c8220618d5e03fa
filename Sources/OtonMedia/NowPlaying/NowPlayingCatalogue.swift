import Foundation
import OtonJSON
import OtonSupport

/// The now-playing provider catalogue: oton's rules (shipped as `now-playing/providers.json`) and the
/// user's (`now-playing.json` beside plugins.json, read after: a rule of the same name replaces
/// oton's, a new one is tried before oton's). Immutable; any thread.
public struct NowPlayingCatalogue: Sendable {
    public let rules: [NowPlayingRule]
    /// Files that could not be read, each said once by whoever loaded the catalogue.
    public let problems: [CatalogueMessage]

    /// The most rules a file may hold, and its largest size.
    public static let maxRules = 500
    public static let maxFileBytes = 1 << 20

    public init(rules: [NowPlayingRule], problems: [CatalogueMessage] = []) {
        self.rules = rules
        self.problems = problems
    }

    /// `user` rules over `shipped` ones: same name replaces in place, new names go first.
    public init(shipped: [NowPlayingRule], user: [NowPlayingRule], problems: [CatalogueMessage] = []) {
        let byName = Dictionary(user.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        let shippedNames = Set(shipped.map(\.name))
        let added = user.filter { !shippedNames.contains($0.name) }
        self.init(rules: added + shipped.map { byName[$0.name] ?? $0 }, problems: problems)
    }

    public func rule(named name: String) -> NowPlayingRule? { rules.first { $0.name == name } }

    /// The rules that match `streamURL` with their placeholders: platform rules in order, then the generic ones.
    public func candidates(for streamURL: URL) -> [(rule: NowPlayingRule, placeholders: [String: String])] {
        let matched = rules.compactMap { rule in rule.placeholders(for: streamURL).map { (rule: rule, placeholders: $0) } }
        return matched.filter { !$0.rule.generic } + matched.filter(\.rule.generic)
    }

    /// The rules of one file's text; the error names the file, the rule and the field.
    public static func rules(in data: Data, file: String) throws(CatalogueMessage) -> [NowPlayingRule] {
        guard data.count <= maxFileBytes else {
            throw CatalogueMessage(N_("{file}: larger than {limit} bytes"), ["file": file, "limit": String(maxFileBytes)])
        }
        let root: JSONValue
        do {
            root = try JSONParser(maxBytes: maxFileBytes).parse(data)
        } catch {
            throw CatalogueMessage(N_("{file}: not JSON: {detail}"), ["file": file, "detail": "\(error)"])
        }
        guard case let .array(list)? = root["rules"], list.count <= maxRules else {
            throw CatalogueMessage(N_("{file}: write an object {\"rules\": [ … ]} with at most {limit} rules"), ["file": file, "limit": String(maxRules)])
        }
        var rules: [NowPlayingRule] = []
        for (index, json) in list.enumerated() {
            let rule = try NowPlayingRule(json: json, file: file, index: index)
            guard !rules.contains(where: { $0.name == rule.name }) else {
                throw CatalogueMessage(N_("{file}: two rules are named \"{rule}\""), ["file": file, "rule": rule.name])
            }
            rules.append(rule)
        }
        return rules
    }

    /// oton's file: `$OTON_NOW_PLAYING_RULES`, beside the executable as `swift build` puts it, or
    /// `<prefix>/share/oton/now-playing/providers.json` for an installed `<prefix>/bin/oton`.
    public static func shippedFiles(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let explicit = environment["OTON_NOW_PLAYING_RULES"], !explicit.isEmpty { return [explicit] }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return [] }
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        return [
            folder.appendingPathComponent("Oton_OtonHost.resources/now-playing/providers.json").path,
            folder.deletingLastPathComponent().appendingPathComponent("share/oton/now-playing/providers.json").path,
        ]
    }

    /// oton's rules and the user's; a file that cannot be read leaves its rules out and is told in `problems`.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> NowPlayingCatalogue {
        var problems: [CatalogueMessage] = []
        var shipped: [NowPlayingRule] = []
        let files = shippedFiles(environment: environment)
        if let file = files.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            do {
                shipped = try rules(in: try Data(contentsOf: URL(fileURLWithPath: file)), file: file)
            } catch let message as CatalogueMessage {
                problems.append(message)
            } catch {
                problems.append(CatalogueMessage(N_("{file}: not readable: {detail}"), ["file": file, "detail": "\(error)"]))
            }
        } else {
            problems.append(CatalogueMessage(N_("oton's now-playing rules are not installed (looked in {files})"), ["files": files.joined(separator: ", ")]))
        }
        var user: [NowPlayingRule] = []
        if let file = XDGPaths(environment: environment).nowPlayingRulesFile, FileManager.default.fileExists(atPath: file) {
            do {
                user = try rules(in: try Data(contentsOf: URL(fileURLWithPath: file)), file: file)
            } catch let message as CatalogueMessage {
                problems.append(message)
            } catch {
                problems.append(CatalogueMessage(N_("{file}: not readable: {detail}"), ["file": file, "detail": "\(error)"]))
            }
        }
        return NowPlayingCatalogue(shipped: shipped, user: user, problems: problems)
    }

    /// Loaded once per process (the player's followers share it).
    public static let installed: NowPlayingCatalogue = load()
}
