"""Training the bean net: samples from rendered tables (numpy only) and the training itself
(``train_bean_net``, which needs the ``train`` extra: torch and onnx)."""
