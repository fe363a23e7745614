@_exported import DouyinModels
@_exported import DouyinGift
