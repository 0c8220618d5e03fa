import Foundation
import OtonJSON
import OtonSupport
import PluginAPI

/// ABI 1.5's `oton_host.read_json`: a C plugin reads its config and a command's arguments by path
/// (``JSONPathReader``, which reads with the bundled plugins' ``PluginConfigReader``: one set of
/// rules and words). This file only converts between C and Swift and writes the error in the
/// table's language.
///
/// Threading: ANY THREAD (the header's word): it keeps no state; the catalogue it translates with is
/// Sendable.
package enum PluginJSONReading {
    /// The C function of the table (`hostReadJSON`).
    package static let function:
        @convention(c) (
            UnsafePointer<oton_host>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafeMutablePointer<oton_json_value>?, UnsafeMutablePointer<CChar>?, Int
        ) -> oton_status = { host, json, path, value, error, errorSize in
            // A table that went dead answers as its other functions do.
            guard let context = PluginHostContext.from(host) else { return OTON_ERR_FAILED }
            return read(json: json, path: path, value: value, error: error, errorSize: errorSize, catalogue: context.translations.catalogue)
        }

    /// The whole call; `catalogue` translates the error.
    package static func read(
        json: UnsafePointer<CChar>?, path: UnsafePointer<CChar>?, value: UnsafeMutablePointer<oton_json_value>?,
        error: UnsafeMutablePointer<CChar>?, errorSize: Int, catalogue: MessageCatalogue
    ) -> oton_status {
        func refuse(_ status: oton_status, _ message: String, _ values: [String: String] = [:]) -> oton_status {
            write(catalogue.tr(message, values), into: error, size: errorSize)
            return status
        }
        guard let value, let json, let path else {
            return refuse(OTON_ERR_INVALID, N_("read_json needs a JSON text, a path and a value (none may be NULL)"))
        }
        guard value.pointee.struct_size >= OTON_JSON_VALUE_SIZE_1_5 else {
            return refuse(OTON_ERR_INVALID, N_("read_json needs value->struct_size set to sizeof(oton_json_value)"))
        }
        guard let want = want(value.pointee) else {
            return refuse(
                OTON_ERR_INVALID, N_("read_json cannot read type {type} with the range {minimum} to {maximum}"),
                ["type": String(value.pointee.type), "minimum": "\(value.pointee.minimum)", "maximum": "\(value.pointee.maximum)"])
        }
        // Read no further than the parser would: a longer text is refused as too large without being copied whole.
        let length = strnlen(json, PluginConfigReader.maxBytes + 1)
        let text = Data(bytes: json, count: length)
        let pathLength = strnlen(path, JSONPathReader.maxPathBytes + 1)
        let pathText = String(decoding: UnsafeRawBufferPointer(start: path, count: pathLength), as: UTF8.self)
        let result: JSONPathReader.Value
        do {
            result = try JSONPathReader.read(text, path: pathText, want: want)
        } catch {
            return refuse(OTON_ERR_INVALID, error.message, error.values)
        }
        value.pointee.found = 1
        switch result {
        case .absent:
            value.pointee.found = 0
        case let .bool(flag):
            value.pointee.boolean = flag ? 1 : 0
        case let .number(number):
            value.pointee.number = number
        case let .integer(whole):
            (value.pointee.integer, value.pointee.number) = (Int64(whole), Double(whole))
        case let .arrayLength(count):
            value.pointee.integer = Int64(count)
        case let .string(string):
            let bytes = Array(string.utf8)
            value.pointee.integer = Int64(bytes.count)
            let size = value.pointee.text_size
            guard size > 0 else { return OTON_OK }
            guard let buffer = value.pointee.text else { return refuse(OTON_ERR_INVALID, N_("read_json needs value->text when value->text_size is not 0")) }
            guard bytes.count < size else {
                buffer[0] = 0
                return refuse(OTON_ERR_FAILED, N_("{key} is longer than {limit} bytes"), ["key": pathText, "limit": String(size - 1)])
            }
            bytes.withUnsafeBufferPointer { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
            buffer[bytes.count] = 0
        }
        return OTON_OK
    }

    /// What the plugin asked for, or nil for an unknown type or a range that is not one.
    private static func want(_ value: oton_json_value) -> JSONPathReader.Want? {
        let (minimum, maximum) = (value.minimum, value.maximum)
        let anyRange = minimum == 0 && maximum == 0
        switch value.type {
        case OTON_JSON_STRING: return .string
        case OTON_JSON_BOOL: return .bool
        case OTON_JSON_ARRAY_LENGTH: return .arrayLength
        case OTON_JSON_NUMBER:
            if anyRange { return .number(nil) }
            guard minimum.isFinite, maximum.isFinite, minimum <= maximum else { return nil }
            return .number(minimum...maximum)
        case OTON_JSON_INTEGER:
            if anyRange { return .integer(nil) }
            // Whole bounds inside what an Int64 holds (2^63 itself is not).
            guard minimum.isFinite, maximum.isFinite, minimum <= maximum, minimum == minimum.rounded(), maximum == maximum.rounded(),
                minimum >= -9.223372036854775808e18, maximum < 9.223372036854775808e18
            else { return nil }
            return .integer(Int(minimum)...Int(maximum))
        default:
            return nil
        }
    }

    /// `text` into the plugin's buffer, NUL-terminated, cut at the end of a whole character.
    package static func write(_ text: String, into buffer: UnsafeMutablePointer<CChar>?, size: Int) {
        guard let buffer, size > 0 else { return }
        let all = Array(text.utf8)
        var cut = min(all.count, size - 1)
        // Never between a character's bytes: back off while the cut would land on a continuation byte.
        while cut > 0, cut < all.count, all[cut] & 0xC0 == 0x80 { cut -= 1 }
        let bytes = Array(all[0..<cut])
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count) }
        }
        buffer[bytes.count] = 0
    }
}
