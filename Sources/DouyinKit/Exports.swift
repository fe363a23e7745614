@_exported import DouyinModels
@_exported import DouyinGift
@_exported import DouyinCache
@_exported import DouyinWebP
@_exported import DouyinVideoCache
@_exported import DouyinFeed
@_exported import DouyinAPI
@_exported import DouyinChat
