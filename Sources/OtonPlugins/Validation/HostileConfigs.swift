import Foundation
import OtonJSON

/// Configs a plugin's create() must survive: refuse with a reason, or accept; never crash or hang.
package enum HostileConfigs {
    /// Each a complete config object, as JSON text the host could hand over.
    package static var all: [(name: String, json: String)] {
        var nested = "1"
        for _ in 0..<64 { nested = "{\"a\":[\(nested)]}" }
        let commonKeys = ["file", "path", "directory", "url", "token", "action", "format", "seconds", "volume", "enabled", "log"]
        func every(_ value: String) -> String {
            "{" + commonKeys.sorted().map { JSONText.quoted($0) + ":" + value }.joined(separator: ",") + "}"
        }
        return [
            ("every common key null", every("null")),
            ("every common key a number", every("-1")),
            ("every common key an array", every("[]")),
            ("every common key an object", every("{}")),
            ("every common key true", every("true")),
            ("every common key an empty string", every("\"\"")),
            ("escapes in every string", every(JSONText.quoted("a\"b\\c\n\u{1}é😀/\u{2028}"))),
            ("paths that do not exist", every(JSONText.quoted("/nonexistent/oton-validate/\u{7F}/x"))),
            ("numbers beyond every type", #"{"a":123456789012345678901234567890,"b":-1e308,"c":1e-320,"d":-0,"e":0.1}"#),
            ("an empty key", #"{"":""}"#),
            ("nesting 64 deep", "{\"deep\":\(nested)}"),
        ]
    }

    /// 4 MiB in one string and 20,000 keys.
    package static var huge: String {
        let long = String(repeating: "x", count: 4 << 20)
        let keys = (0..<20_000).map { String(format: "\"key%05d\":%d", $0, $0) }.joined(separator: ",")
        return "{\"huge\":\"\(long)\",\(keys)}"
    }
}
