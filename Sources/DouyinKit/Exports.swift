@_exported import DouyinModels
