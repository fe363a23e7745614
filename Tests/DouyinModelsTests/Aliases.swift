import DouyinModels

/// Swift Testing has its own `Comment`; inside this test module the name means the model.
typealias Comment = DouyinModels.Comment
