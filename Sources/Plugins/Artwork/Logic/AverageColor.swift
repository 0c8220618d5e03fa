/// The average colour of 8-bit RGB(A) pixels as `#RRGGBB`. Transparent pixels
/// count by their alpha, so a logo on a transparent background is not greyed.
public enum AverageColor {
    public static func of(pixels: UnsafeRawBufferPointer, width: Int, height: Int, rowStride: Int, channels: Int) -> String? {
        guard width > 0, height > 0, channels >= 3, rowStride >= width * channels,
            pixels.count >= (height - 1) * rowStride + width * channels
        else { return nil }
        var red = 0.0, green = 0.0, blue = 0.0, weight = 0.0
        // Every pixel of images up to 4096², sampled on a grid beyond a million pixels.
        let step = max(1, Int((Double(width * height) / 1_000_000).squareRoot().rounded(.up)))
        for y in stride(from: 0, to: height, by: step) {
            let row = y * rowStride
            for x in stride(from: 0, to: width, by: step) {
                let offset = row + x * channels
                let alpha = channels >= 4 ? Double(pixels[offset + 3]) / 255 : 1
                red += Double(pixels[offset]) * alpha
                green += Double(pixels[offset + 1]) * alpha
                blue += Double(pixels[offset + 2]) * alpha
                weight += alpha
            }
        }
        guard weight > 0 else { return "#000000" }
        return hex(red / weight, green / weight, blue / weight)
    }

    public static func hex(_ red: Double, _ green: Double, _ blue: Double) -> String {
        func two(_ value: Double) -> String {
            let byte = UInt8(max(0, min(255, value.rounded())))
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }
        return "#" + two(red) + two(green) + two(blue)
    }
}
