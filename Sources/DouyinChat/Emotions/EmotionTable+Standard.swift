import DouyinModels

extension EmotionTable {
    /// The package's own emotion table: 46 emotions on three keyboard pages (20, 20, 6).
    ///
    /// Written by this project (the same table is `Fixtures/chat/emotion.json`, made by
    /// `Fixtures/chat/generate.py`); apps pass their server's table to ``EmotionCodec`` instead.
    public static let standard = EmotionTable(
        dict: [
            "weixiao": "[微笑]",
            "daxiao": "[大笑]",
            "touxiao": "[偷笑]",
            "ku": "[哭]",
            "liulei": "[流泪]",
            "shengqi": "[生气]",
            "jingya": "[惊讶]",
            "haixiu": "[害羞]",
            "wunai": "[无奈]",
            "dianzan": "[点赞]",
            "guzhang": "[鼓掌]",
            "baoquan": "[抱拳]",
            "woshou": "[握手]",
            "aixin": "[爱心]",
            "xinsui": "[心碎]",
            "meigui": "[玫瑰]",
            "diaoxie": "[凋谢]",
            "taiyang": "[太阳]",
            "yueliang": "[月亮]",
            "xingxing": "[星星]",
            "kafei": "[咖啡]",
            "naicha": "[奶茶]",
            "hanbao": "[汉堡]",
            "xigua": "[西瓜]",
            "liwu": "[礼物]",
            "hongbao": "[红包]",
            "yanhua": "[烟花]",
            "dengpao": "[灯泡]",
            "zhadan": "[炸弹]",
            "shuijiao": "[睡觉]",
            "dahaqian": "[打哈欠]",
            "yun": "[晕]",
            "kelian": "[可怜]",
            "deyi": "[得意]",
            "kuxiao": "[苦笑]",
            "lenghan": "[冷汗]",
            "yiwen": "[疑问]",
            "ok": "[OK]",
            "ye": "[耶]",
            "quantou": "[拳头]",
            "shandian": "[闪电]",
            "xiayu": "[下雨]",
            "feiwen": "[飞吻]",
            "baobao": "[抱抱]",
            "xiaolian": "[😀笑脸]",
            "zhenbang": "[这也太棒了吧]",
        ],
        array: [
            ["weixiao", "daxiao", "touxiao", "ku", "liulei", "shengqi", "jingya", "haixiu", "wunai", "dianzan", "guzhang", "baoquan", "woshou", "aixin", "xinsui", "meigui", "diaoxie", "taiyang", "yueliang", "xingxing"],
            ["kafei", "naicha", "hanbao", "xigua", "liwu", "hongbao", "yanhua", "dengpao", "zhadan", "shuijiao", "dahaqian", "yun", "kelian", "deyi", "kuxiao", "lenghan", "yiwen", "ok", "ye", "quantou"],
            ["shandian", "xiayu", "feiwen", "baobao", "xiaolian", "zhenbang"],
        ]
    )
}
