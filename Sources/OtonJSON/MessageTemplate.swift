/// The `{name}` placeholders of oton's messages (the catalogues' msgids, docs/translating.md), filled
/// the one way the host's catalogue and the plugins (which never link the host) both use. It lives
/// here because this module is the one both sides compile in.
public enum MessageTemplate {
    /// `template` with each `{name}` that `values` has replaced in one pass (a value's own braces are
    /// left alone); any other brace stays as it is.
    public static func filled(_ template: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"), let value = values[String(rest[rest.index(after: open)..<close])] else {
                result.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
