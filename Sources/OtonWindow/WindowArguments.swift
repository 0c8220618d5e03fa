import OtonControl
import OtonSupport

/// `oton window [--instance NAME] [--config FILE] [--size WIDTHxHEIGHT]`.
public struct WindowArguments: Sendable {
    public var instance: String?
    public var config: String?
    public var size: (width: Int32, height: Int32) = (720, 820)

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    public static let usage = """
        usage: oton window [--instance NAME] [--config FILE] [--size WIDTHxHEIGHT]
          --instance NAME  the running oton to show (default: "default", else the only one); started when none runs
          --config FILE    plugins.json for the player the window starts
          --size WxH       the window's first size in pixels (default 720x820; at least 360x360)
        """

    public static func parse(_ words: [String]) throws(Problem) -> WindowArguments {
        var parsed = WindowArguments()
        var rest = words[...]
        while let word = rest.popFirst() {
            let (name, inline) = word.split(separator: "=", maxSplits: 1).map(String.init).pairOrSingle
            guard ["--instance", "--config", "--size"].contains(name) else {
                throw Problem(description: tr("unknown argument \"{argument}\"", ["argument": word]))
            }
            guard let value = inline ?? rest.popFirst() else { throw Problem(description: tr("{option} needs a value", ["option": name])) }
            switch name {
            case "--instance":
                guard ControlSocketPath.isValidInstance(value) else {
                    throw Problem(description: tr("an instance name has letters, digits, '.', '_' and '-' (at most 64), not \"{name}\"", ["name": value]))
                }
                parsed.instance = value
            case "--config": parsed.config = value
            default: parsed.size = try size(value)
            }
        }
        return parsed
    }

    private static func size(_ text: String) throws(Problem) -> (width: Int32, height: Int32) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int32(parts[0]), let height = Int32(parts[1]),
            (360...16384).contains(width), (360...16384).contains(height)
        else {
            throw Problem(description: tr("--size takes WIDTHxHEIGHT in pixels, each 360 to 16384, not \"{value}\"", ["value": text]))
        }
        return (width, height)
    }
}

private extension Array where Element == String {
    var pairOrSingle: (String, String?) { count == 2 ? (self[0], self[1]) : (first ?? "", nil) }
}
