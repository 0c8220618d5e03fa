import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// One key of a Swift plugin's "config", declared in its descriptor (ABI 1.6, oton_setting_decl).
public struct SettingDeclaration: Sendable {
    public enum Kind: Sendable {
        case boolean, integer, number, string, strings

        var type: UInt32 {
            switch self {
            case .boolean: UInt32(OTON_SETTING_BOOLEAN.rawValue)
            case .integer: UInt32(OTON_SETTING_INTEGER.rawValue)
            case .number: UInt32(OTON_SETTING_NUMBER.rawValue)
            case .string: UInt32(OTON_SETTING_STRING.rawValue)
            case .strings: UInt32(OTON_SETTING_STRINGS.rawValue)
            }
        }
    }

    public var key: String
    public var kind: Kind
    public var help: String
    /// The default as JSON text ("true", "5", "\"mp3\""), or nil.
    public var defaultJSON: String?
    public var choices: [String]
    public var range: ClosedRange<Double>?
    public var required: Bool
    public var secret: Bool

    public init(
        _ key: String, _ kind: Kind, help: String, defaultJSON: String? = nil, choices: [String] = [],
        range: ClosedRange<Double>? = nil, required: Bool = false, secret: Bool = false
    ) {
        self.key = key
        self.kind = kind
        self.help = help
        self.defaultJSON = defaultJSON
        self.choices = choices
        self.range = range
        self.required = required
        self.secret = secret
    }

    /// The C declaration; its strings come from `permanent` (never freed).
    func declaration(_ permanent: (String) -> UnsafePointer<CChar>) -> oton_setting_decl {
        var choiceList: UnsafePointer<UnsafePointer<CChar>?>?
        if !choices.isEmpty {
            let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: choices.count + 1)
            for (index, choice) in choices.enumerated() { list[index] = permanent(choice) }
            list[choices.count] = nil
            choiceList = UnsafePointer(list)
        }
        var flags: UInt32 = 0
        if required { flags |= OTON_SETTING_REQUIRED }
        if range != nil { flags |= OTON_SETTING_HAS_RANGE }
        if secret { flags |= OTON_SETTING_SECRET }
        return oton_setting_decl(
            struct_size: UInt32(MemoryLayout<oton_setting_decl>.size), type: kind.type, key: permanent(key), help: permanent(help),
            default_json: defaultJSON.map(permanent), choices: choiceList,
            minimum: range?.lowerBound ?? 0, maximum: range?.upperBound ?? 0, flags: flags, reserved: 0)
    }
}
