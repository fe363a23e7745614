#!/usr/bin/env python3
"""Writes DouyinKit's own emotion table, Fixtures/chat/emotion.json, in the API's shape
(`dict`: file name → "[text]", `array`: keyboard pages of file names).

The same table is compiled into DouyinChat as `EmotionTable.standard`; a test checks the two
agree. 46 emotions: two full keyboard pages of 20 and a short last page of 6, so the short-page
mapping is exercised. One text holds an emoji (a surrogate pair in UTF-16) and one is long.
"""
import json
from pathlib import Path

EMOTIONS = [
    ("weixiao", "微笑"), ("daxiao", "大笑"), ("touxiao", "偷笑"), ("ku", "哭"), ("liulei", "流泪"),
    ("shengqi", "生气"), ("jingya", "惊讶"), ("haixiu", "害羞"), ("wunai", "无奈"), ("dianzan", "点赞"),
    ("guzhang", "鼓掌"), ("baoquan", "抱拳"), ("woshou", "握手"), ("aixin", "爱心"), ("xinsui", "心碎"),
    ("meigui", "玫瑰"), ("diaoxie", "凋谢"), ("taiyang", "太阳"), ("yueliang", "月亮"), ("xingxing", "星星"),
    ("kafei", "咖啡"), ("naicha", "奶茶"), ("hanbao", "汉堡"), ("xigua", "西瓜"), ("liwu", "礼物"),
    ("hongbao", "红包"), ("yanhua", "烟花"), ("dengpao", "灯泡"), ("zhadan", "炸弹"), ("shuijiao", "睡觉"),
    ("dahaqian", "打哈欠"), ("yun", "晕"), ("kelian", "可怜"), ("deyi", "得意"), ("kuxiao", "苦笑"),
    ("lenghan", "冷汗"), ("yiwen", "疑问"), ("ok", "OK"), ("ye", "耶"), ("quantou", "拳头"),
    ("shandian", "闪电"), ("xiayu", "下雨"), ("feiwen", "飞吻"), ("baobao", "抱抱"),
    ("xiaolian", "😀笑脸"), ("zhenbang", "这也太棒了吧"),
]


def main():
    table = {
        "dict": {key: f"[{text}]" for key, text in EMOTIONS},
        "array": [[key for key, _ in EMOTIONS[start:start + 20]] for start in range(0, len(EMOTIONS), 20)],
    }
    out = Path(__file__).resolve().parent / "emotion.json"
    out.write_text(json.dumps(table, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
