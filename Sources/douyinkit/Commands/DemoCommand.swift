/// `douyinkit demo`: the package's main jobs end to end on its own data and the local backend.
enum DemoCommand {
    static let usage = """
    usage: douyinkit demo
      runs each module on the tool's bundled data: feed decoding, the two-tier cache, WebP covers,
      the video cache, the local proxy with ffmpeg as the player (skipped without ffmpeg), the
      feed preloader, a swipe session, gifts, the API client and group chat (the last two need
      /usr/bin/python3 with python3-websockets for the local backend)
    """

    static let verb = Verb(name: "demo", summary: "show every module at work on bundled data, nothing to set up", usage: usage) { arguments in
        guard arguments.isEmpty else { throw ToolError.usage("demo takes no arguments\n\(usage)") }
        try await Demo.run()
    }
}
