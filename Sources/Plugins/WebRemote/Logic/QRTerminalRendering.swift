/// Draws a QR code for a terminal with Unicode half blocks, two module rows per text line.
/// Light modules are drawn (as the terminal's foreground), dark ones left blank: on the usual
/// light-on-dark terminal the code then reads dark on light, as scanners expect.
public enum QRTerminalRendering {
    public static func render(_ code: QRCode, quietZone: Int = 2) -> String {
        let size = code.size + 2 * quietZone
        func light(_ x: Int, _ y: Int) -> Bool {
            let qx = x - quietZone, qy = y - quietZone
            guard (0..<code.size).contains(qx), (0..<code.size).contains(qy) else { return true }
            return !code.modules[qy][qx]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            var line = ""
            for x in 0..<size {
                let top = light(x, y), bottom = y + 1 < size ? light(x, y + 1) : false
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
