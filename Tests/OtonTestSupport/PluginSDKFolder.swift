import Foundation

/// An oton-plugin.pc as scripts/install writes it, pointing at this tree's header: what a plugin
/// project outside the tree finds through pkg-config (set PKG_CONFIG_PATH to the folder returned).
public enum PluginSDKFolder {
    public static func make(in directory: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: directory.file("pkgconfig"), withIntermediateDirectories: true)
        _ = try directory.write(
            "pkgconfig/oton-plugin.pc",
            """
            includedir=\(TestPaths.header)
            Name: oton-plugin
            Description: the Oton plugin ABI
            Version: 1.6
            Cflags: -I${includedir}
            """)
        return directory.file("pkgconfig")
    }
}
