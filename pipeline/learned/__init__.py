"""The learned cleaner (`neighbours`): block features, the model's trees and sequence nets with
their compiled kernels, and the decision rule."""
