"Small number series."
