import Foundation
import OtonJSON
import PluginAPI

/// Reads and checks the settings a descriptor declares (ABI 1.6): the loader refuses a plugin whose
/// declarations are themselves wrong, so that a config is only ever checked against sound ones.
package enum PluginSettingsReader {
    package static let maximumCount = 256

    package static func read(_ d: oton_plugin_descriptor, path: String) throws(PluginLoadError) -> [PluginSetting] {
        // Before 1.6 these bytes were not the plugin's to fill: zero-extended, but never trusted.
        guard d.abi_minor >= 6, Int(d.struct_size) >= Int(OTON_DESCRIPTOR_SIZE_1_6), d.setting_count > 0 else { return [] }
        guard let base = d.settings else { throw .missingField(path: path, field: "settings (setting_count is \(d.setting_count))") }
        let stride = ABIStructReader.declaredSize(base)
        guard stride >= Int(OTON_SETTING_DECL_SIZE_1_6), stride <= 4096, d.setting_count <= maximumCount else {
            throw .invalidField(
                path: path, field: "settings",
                reason: "struct_size \(stride) (at least \(OTON_SETTING_DECL_SIZE_1_6)) or count \(d.setting_count) (at most \(maximumCount)) is out of range")
        }
        var out: [PluginSetting] = []
        for index in 0..<Int(d.setting_count) {
            let decl = ABIStructReader.zeroExtended(UnsafeRawPointer(base).advanced(by: index * stride), size: stride, as: oton_setting_decl.self)
            let setting = try setting(decl, path: path)
            guard !out.contains(where: { $0.key == setting.key }) else {
                throw .invalidField(path: path, field: "settings[].key", reason: "\"\(setting.key)\" is declared twice")
            }
            out.append(setting)
        }
        return out
    }

    /// Keys: [a-z0-9_]+, at most 64 bytes.
    package static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 64
            && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    private static func setting(_ decl: oton_setting_decl, path: String) throws(PluginLoadError) -> PluginSetting {
        guard let keyPointer = decl.key else { throw .missingField(path: path, field: "settings[].key") }
        let key = String(cString: keyPointer)
        func invalid(_ reason: String) -> PluginLoadError { .invalidField(path: path, field: "settings[\"\(key)\"]", reason: reason) }
        guard isValidKey(key) else { throw .invalidField(path: path, field: "settings[].key", reason: "\"\(key)\" must be [a-z0-9_]+, at most 64 bytes") }
        let kind: PluginSetting.Kind
        switch decl.type {
        case UInt32(OTON_SETTING_BOOLEAN.rawValue): kind = .boolean
        case UInt32(OTON_SETTING_INTEGER.rawValue): kind = .integer
        case UInt32(OTON_SETTING_NUMBER.rawValue): kind = .number
        case UInt32(OTON_SETTING_STRING.rawValue): kind = .string
        case UInt32(OTON_SETTING_STRINGS.rawValue): kind = .strings
        default: throw invalid("type \(decl.type) is not an OTON_SETTING_* type")
        }
        let known = OTON_SETTING_REQUIRED | OTON_SETTING_HAS_RANGE | OTON_SETTING_SECRET
        guard decl.flags & ~known == 0 else { throw invalid("unknown flag bits 0x\(String(decl.flags & ~known, radix: 16))") }
        var range: ClosedRange<Double>?
        if decl.flags & OTON_SETTING_HAS_RANGE != 0 {
            guard kind == .integer || kind == .number else { throw invalid("OTON_SETTING_HAS_RANGE is for INTEGER and NUMBER settings") }
            guard decl.minimum.isFinite, decl.maximum.isFinite, decl.minimum <= decl.maximum else {
                throw invalid("minimum \(decl.minimum) and maximum \(decl.maximum) are not a range")
            }
            range = decl.minimum...decl.maximum
        }
        let choices = PluginLibrary.readStringList(decl.choices)
        guard choices.isEmpty || kind == .string else { throw invalid("choices are for STRING settings") }
        var setting = PluginSetting(
            key: key, kind: kind, help: decl.help.map { String(cString: $0) } ?? "", choices: choices, range: range,
            required: decl.flags & OTON_SETTING_REQUIRED != 0, secret: decl.flags & OTON_SETTING_SECRET != 0)
        if let defaultPointer = decl.default_json {
            let text = String(cString: defaultPointer)
            guard let value = try? JSONParser(maxBytes: 64 << 10).parse(Data(text.utf8)) else { throw invalid("default_json \(text) is not JSON") }
            if let problem = setting.problem(with: value) { throw invalid("its default \(text) \(problem)") }
            setting.defaultValue = value
        }
        return setting
    }
}
