import Foundation
import OtonJSON
import PluginAPI

/// ABI 1.6's `oton_host.write_json_string`: a C plugin gets a JSON string literal from the host's one
/// JSON writer (``JSONValue``'s text: the escapes every JSON oton writes uses), so it sends JSON
/// without escaping code of its own.
///
/// Threading: ANY THREAD: it keeps no state.
package enum PluginJSONWriting {
    package static let maximumInputBytes = 1 << 20

    /// The C function of the table.
    package static let function:
        @convention(c) (
            UnsafePointer<oton_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int,
            UnsafeMutablePointer<Int>?
        ) -> oton_status = { host, text, out, outSize, length in
            guard PluginHostContext.from(host) != nil else { return OTON_ERR_FAILED }
            return write(text: text, out: out, outSize: outSize, length: length)
        }

    package static func write(
        text: UnsafePointer<CChar>?, out: UnsafeMutablePointer<CChar>?, outSize: Int,
        length: UnsafeMutablePointer<Int>?
    ) -> oton_status {
        guard let text, out != nil || outSize == 0 else { return OTON_ERR_INVALID }
        let count = strnlen(text, maximumInputBytes)
        let string = String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
        let literal = Array(JSONValue.string(string).jsonText.utf8)
        length?.pointee = literal.count
        guard let out, literal.count < outSize else {
            if let out, outSize > 0 { out[0] = 0 }
            return OTON_ERR_FAILED
        }
        literal.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(out).copyMemory(from: bytes.baseAddress!, byteCount: literal.count)
        }
        out[literal.count] = 0
        return OTON_OK
    }
}
