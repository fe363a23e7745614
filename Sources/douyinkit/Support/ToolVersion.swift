/// The version `douyinkit --version` prints: the package's release, raised with each release.
enum ToolVersion {
    /// Semantic version of this source tree's tool and library.
    static let current = "0.5.0"
}
