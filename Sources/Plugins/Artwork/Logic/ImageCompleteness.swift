/// Whether a JPEG or PNG file reaches its end marker. Decoders may accept a
/// file cut short once they have every row (a solid image compresses to a few
/// bytes), so a download cut off mid-way is caught here too.
public enum ImageCompleteness {
    private static let pngEnd: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]  // "IEND" and its CRC

    public static func isComplete(_ bytes: [UInt8], format: String) -> Bool {
        switch format {
        case "png":
            return bytes.count >= 8 && Array(bytes.suffix(8)) == pngEnd
        case "jpeg":
            // End of image (FF D9), allowing padding after it as some encoders write.
            var end = bytes.count
            while end > 0 && (bytes[end - 1] == 0 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D) { end -= 1 }
            return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
        default:
            return true  // the decoder's own checks
        }
    }
}
