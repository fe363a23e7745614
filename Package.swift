// swift-tools-version: 6.0
import PackageDescription

/// One set of settings for every target, so the language mode cannot drift between modules.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // Makes `any` explicit for existentials; costs nothing now and is the Swift 7 default.
    .enableUpcomingFeature("ExistentialAny"),
]

// libwebp, by host. The manifest is evaluated on the machine that builds, never on the device:
// - Apple hosts (Xcode or `swift build` on macOS, building for iOS, macOS, tvOS or watchOS) take
//   libwebp from source through SDWebImage's libwebp-Xcode package (product and module
//   `libwebp`, BSD-3 libwebp compiled from its own sources), because an iOS app cannot link a
//   Homebrew or system libwebp. DouyinWebP then imports `libwebp` (LibWebPContainer.swift).
// - Linux keeps Debian's libwebp-dev through the CWebP system-library target; the `#if` means a
//   Linux build never resolves, downloads or builds the Apple dependency.
// The benchmark and the tests still compare against CWebP (the system libwebp's own
// WebPAnimDecoder): on macOS they need Homebrew's webp, an app using the library does not.
#if os(Linux)
let webpPackages: [Package.Dependency] = []
let libwebp: Target.Dependency = "CWebP"
#else
let webpPackages: [Package.Dependency] = [.package(url: "https://github.com/SDWebImage/libwebp-Xcode.git", from: "1.5.0")]
let libwebp: Target.Dependency = .product(name: "libwebp", package: "libwebp-Xcode")
#endif

let package = Package(
    name: "DouyinKit",
    // `Duration`, `Clock` and the async APIs the modules use need these; without a platforms
    // line SwiftPM builds for macOS 10.13 / iOS 12 and the package does not compile there.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "DouyinKit", targets: ["DouyinKit"]),
        .library(name: "DouyinModels", targets: ["DouyinModels"]),
        .library(name: "DouyinGift", targets: ["DouyinGift"]),
        .library(name: "DouyinCache", targets: ["DouyinCache"]),
        .library(name: "DouyinWebP", targets: ["DouyinWebP"]),
        .library(name: "DouyinVideoCache", targets: ["DouyinVideoCache"]),
        .library(name: "DouyinFeed", targets: ["DouyinFeed"]),
        .library(name: "DouyinAPI", targets: ["DouyinAPI"]),
        .library(name: "DouyinChat", targets: ["DouyinChat"]),
        .library(name: "DouyinLogging", targets: ["DouyinLogging"]),
        .executable(name: "douyinkit", targets: ["douyinkit"]),
    ],
    dependencies: webpPackages,
    targets: [
        // Internal: the one lock box, async Operation state, MD5, CRC32C, the POSIX file layer
        // with its fault seam, the HTTP transport seam (libcurl on Linux, URLSession). No product, never re-exported; `package` access.
        // The HTTP transport seam lives here too: on Linux over libcurl's multi interface (CCurl).
        .target(name: "DouyinSupport", dependencies: ["CDouyinCRC32C", .target(name: "CCurl", condition: .when(platforms: [.linux])),
                                                      .target(name: "CLinux", condition: .when(platforms: [.linux]))],
                swiftSettings: swiftSettings),
        // What Glibc's Swift module leaves out, for the proxy's socket loop on Linux: epoll(7)
        // and thread names (the C library's own; nothing to link). Other platforms wait in poll(2).
        .systemLibrary(name: "CLinux"),
        // libcurl (Debian libcurl4-openssl-dev) for the HTTP transport on Linux; Apple platforms
        // use URLSession and never link it.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // CRC-32C in the processor's instructions (SSE 4.2, ARMv8 CRC), chosen at run time;
        // only DouyinSupport's `CRC32C` calls it. Plain C, no system library.
        .target(name: "CDouyinCRC32C"),
        .target(name: "DouyinModels", swiftSettings: swiftSettings),
        // The one public log event and its hook, which the caches, the API client and the feed
        // emit through; a leaf like Models.
        .target(name: "DouyinLogging", swiftSettings: swiftSettings),
        // DouyinModels for `Rect`, the one rectangle the gift panel and the feed's layouts share.
        .target(name: "DouyinGift", dependencies: ["DouyinModels", "DouyinSupport"], swiftSettings: swiftSettings),
        .target(name: "DouyinCache", dependencies: ["DouyinLogging", "DouyinSupport"], swiftSettings: swiftSettings),
        // libwebp from the system (Debian libwebp-dev, Homebrew webp): DouyinWebP's on Linux, and
        // the baseline the bench and the WebP tests compare with on every host.
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),
        .target(name: "DouyinWebP", dependencies: [libwebp, "DouyinSupport"], swiftSettings: swiftSettings),
        .target(name: "DouyinVideoCache", dependencies: ["DouyinLogging", "DouyinSupport"], swiftSettings: swiftSettings),
        .target(name: "DouyinAPI", dependencies: ["DouyinLogging", "DouyinModels", "DouyinSupport"], swiftSettings: swiftSettings),
        // The feed: playback policy, the preloader over both caches, the cover pipeline.
        .target(
            name: "DouyinFeed",
            dependencies: ["DouyinModels", "DouyinLogging", "DouyinCache", "DouyinVideoCache", "DouyinWebP", "DouyinSupport"],
            swiftSettings: swiftSettings
        ),
        // Group chat: emotion codec, timeline, realtime client with its own RFC 6455 transport.
        // On Linux its wss:// runs on OpenSSL (Debian libssl-dev); Apple uses URLSession's TLS.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // zlib (Debian zlib1g-dev) for permessage-deflate on the own client, Linux only.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "DouyinChat",
            dependencies: ["DouyinModels", "DouyinAPI", "DouyinLogging", "DouyinSupport", .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
                           .target(name: "CZlib", condition: .when(platforms: [.linux]))],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DouyinKit",
            dependencies: ["DouyinModels", "DouyinLogging", "DouyinGift", "DouyinCache", "DouyinWebP", "DouyinVideoCache", "DouyinFeed", "DouyinAPI", "DouyinChat"],
            swiftSettings: swiftSettings
        ),
        // Starts the demo backend (Backend/demo_backend.py) on a loopback port for the tool's
        // demo, the bench and the tests. Not a library product and not test code: the shipped
        // tool links it. Its resources are the backend and the package's Fixtures (the top-level
        // `Fixtures` and scripts/servers' backend files are symlinks to them), so the tool runs
        // from any directory; SwiftPM copies real files, never the symlinks.
        .target(name: "DouyinBackendLauncher", dependencies: ["DouyinSupport"],
                resources: [.copy("Fixtures"), .copy("Backend")], swiftSettings: swiftSettings),
        // DouyinSupport: `--out` writes through its FileIO (one write-all loop in the package).
        .executableTarget(name: "douyinkit", dependencies: ["DouyinKit", "DouyinSupport", "DouyinBackendLauncher"], swiftSettings: swiftSettings),
        // CWebP directly: the WebP baseline is libwebp's own WebPAnimDecoder; DouyinTestSupport
        // for the loopback nginx the video benchmark downloads from.
        .executableTarget(name: "douyinkit-bench", dependencies: ["DouyinKit", "CWebP", "DouyinSupport", "DouyinBackendLauncher", "DouyinTestSupport"], swiftSettings: swiftSettings),
        // Test-only helpers (fixture paths, nginx harness, manual clock; re-exports the backend
        // launcher); never re-exported by a library.
        .target(name: "DouyinTestSupport", dependencies: ["DouyinAPI", "DouyinLogging", "DouyinSupport", "DouyinBackendLauncher"], path: "Tests/DouyinTestSupport", swiftSettings: swiftSettings),
        // The tests' traits (HangGuard); apart from DouyinTestSupport because they import
        // Testing, which the benchmark, a user of DouyinTestSupport, must not link.
        .target(name: "DouyinTestTraits", dependencies: ["DouyinTestSupport"], path: "Tests/DouyinTestTraits", swiftSettings: swiftSettings),
        .testTarget(
            name: "DouyinSupportTests",
            dependencies: ["DouyinSupport", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinModelsTests",
            dependencies: ["DouyinModels", "DouyinTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinGiftTests",
            dependencies: ["DouyinGift", "DouyinSupport", "DouyinTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinCacheTests",
            dependencies: ["DouyinCache", "DouyinSupport", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinVideoCacheTests",
            dependencies: ["DouyinVideoCache", "DouyinSupport", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinWebPTests",
            // CWebP directly: the tests compare against libwebp's own WebPAnimDecoder.
            dependencies: ["DouyinWebP", "CWebP", "DouyinSupport", "DouyinTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinFeedTests",
            dependencies: ["DouyinFeed", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinAPITests",
            dependencies: ["DouyinAPI", "DouyinModels", "DouyinSupport", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DouyinChatTests",
            dependencies: ["DouyinChat", "DouyinAPI", "DouyinSupport", "DouyinTestSupport", "DouyinTestTraits"],
            swiftSettings: swiftSettings
        ),
        // Runs the built `douyinkit` binary; depending on it makes SwiftPM build it first.
        // CWebP: webp-frames output is compared with libwebp's own WebPAnimDecoder in MODE_RGBA.
        // DouyinSupport: OutputFile's tests inject disk faults through its Syscalls seam.
        .testTarget(name: "ToolTests", dependencies: ["douyinkit", "DouyinVideoCache", "DouyinSupport", "DouyinTestSupport", "DouyinTestTraits", "CWebP"], swiftSettings: swiftSettings),
    ]
)
